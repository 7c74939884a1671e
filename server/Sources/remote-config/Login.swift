import ArgumentParser
import Crypto
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `remote-config login`: signs a person in with the device authorization grant (RFC 8628) through the
/// server, or, when the provider has no device endpoint, through a redirect to a listener on 127.0.0.1
/// (RFC 8252), and saves the personal token every later command uses when no `--token` is given.
struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign in as a person, with the server's identity provider.",
        discussion: helpText(
            [
                "Prints a URL and a code to enter there, waits while you sign in at the provider, and saves a personal token in ~/.config/remote-config/credentials (mode 0600, one entry per server)."
            ],
            "remote-config login --server https://config.example.com"))

    @Option(help: "The server's URL (RC_SERVER; default http://127.0.0.1:8080).")
    var server: String?

    @Option(help: "Give up after this many seconds (default: when the code expires).")
    var timeout: Int?

    func run() async throws {
        try await runAdmin {
            let client = try ConnectionOptions(server: server, token: nil).client(savedToken: false)
            let start: DeviceAuthorization
            do {
                start = try await client.startDeviceSignIn()
            } catch AdminClientError.server(let error)
                where error.details.contains(where: { $0.reason == "DEVICE_FLOW_UNSUPPORTED" })
            {
                return try await loopback(client)
            }
            let link = start.verificationUriComplete ?? start.verificationUri
            Output.line("To sign in, open \(link)")
            Output.line("and enter the code \(start.userCode) (valid for \(start.expiresIn / 60) minutes).")
            Output.line("Waiting for you to sign in…")
            Self.openBrowser(link)
            var interval = max(1, start.interval)
            let limit = min(start.expiresIn, timeout ?? start.expiresIn)
            let deadline = Date().addingTimeInterval(TimeInterval(limit))
            while Date() < deadline {
                try await Task.sleep(for: .seconds(interval))
                let answer = try await client.pollDeviceSignIn(start.deviceCode)
                switch answer.status {
                case 200:
                    return try Self.save(try answer.decode(PersonalToken.self), client)
                case 428:
                    continue
                case 429:
                    interval += 5
                default:
                    throw AdminClientError.server(AdminClient.error(answer))
                }
            }
            throw CommandFailure(.refused, "the sign-in was not finished in time; run `remote-config login` again")
        }
    }

    /// The fallback: the provider sends the browser back to a listener of ours on 127.0.0.1, with a PKCE
    /// verifier only this process knows; the server exchanges the code.
    private func loopback(_ client: AdminClient) async throws {
        let listener = try LoopbackListener()
        let verifier = Self.randomURLSafe()
        let challenge = Self.urlSafe(Data(SHA256.hash(data: Data(verifier.utf8))))
        let redirect = "http://127.0.0.1:\(listener.port)/callback"
        let start = try await client.call(
            "POST", "/v1/auth/loopback",
            body: APIEncoder.bytes(LoopbackSignInRequest(redirectUri: redirect, codeChallenge: challenge))
        ).decode(LoopbackSignIn.self)
        Output.line("To sign in, open \(start.authorizationUrl)")
        Output.line("Waiting for you to sign in (the browser comes back to \(redirect))…")
        Self.openBrowser(start.authorizationUrl)
        let wait = timeout ?? 300
        guard let query = await Task.detached(operation: { listener.receive(timeout: wait) }).value else {
            throw CommandFailure(.refused, "the sign-in was not finished in time; run `remote-config login` again")
        }
        guard query["state"] == start.state else {
            throw CommandFailure(.refused, "the browser came back with another sign-in's state; nothing was saved")
        }
        if let error = query["error"] {
            throw CommandFailure(.refused, "the identity provider did not sign you in (\(TerminalText.field(error)))")
        }
        let answer = try await client.send(
            "POST", "/v1/auth/loopback:token",
            body: APIEncoder.bytes(
                LoopbackTokenRequest(code: query["code"] ?? "", state: start.state, codeVerifier: verifier)))
        guard answer.status == 200 else { throw AdminClientError.server(AdminClient.error(answer)) }
        try Self.save(try answer.decode(PersonalToken.self), client)
    }

    /// Keeps the personal token for the server, and says who signed in.
    private static func save(_ token: PersonalToken, _ client: AdminClient) throws {
        var saved = Credentials.load()
        saved.servers[Credentials.key(client.server)] = Credentials.Entry(
            token: token.token, email: token.user.email, expireTime: token.expireTime)
        try saved.save()
        Output.line("Signed in as \(TerminalText.field(token.user.email)) on \(client.serverText).")
    }

    private static func randomURLSafe() -> String {
        var generator = SystemRandomNumberGenerator()
        return urlSafe(Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    private static func urlSafe(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Opens the link where a desktop is there to open it; the printed link is enough otherwise.
    static func openBrowser(_ link: String) {
        let environment = ProcessInfo.processInfo.environment
        #if os(macOS)
            let opener = "/usr/bin/open"
        #else
            guard environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil else { return }
            let opener = "/usr/bin/xdg-open"
        #endif
        guard FileManager.default.isExecutableFile(atPath: opener) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [link]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try? process.run()
    }
}

/// `remote-config logout`: ends the saved personal token's session on the server and forgets it.
struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign out: end the saved personal token's session and delete it.",
        discussion: helpText([], "remote-config logout --server https://config.example.com"))

    @Option(help: "The server's URL (RC_SERVER; default http://127.0.0.1:8080).")
    var server: String?

    func run() async throws {
        try await runAdmin {
            let options = ConnectionOptions(server: server, token: nil)
            let url = try options.serverURL()
            var saved = Credentials.load()
            guard let entry = saved.servers[Credentials.key(url)] else {
                return Output.line("Not signed in on \(url.absoluteString).")
            }
            do {
                try await AdminClient(server: url, token: entry.token).endSession()
            } catch AdminClientError.server(let error) where error.code == 401 {
                // Already ended on the server (expired, or revoked by an admin): forgetting it is all that is left.
            }
            saved.servers[Credentials.key(url)] = nil
            try saved.save()
            Output.line("Signed out \(TerminalText.field(entry.email)) from \(url.absoluteString).")
        }
    }
}

/// `remote-config whoami`: who the token is, and its roles now (`GET /v1/me`).
struct WhoAmI: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami", abstract: "Show who the token is and its roles.",
        discussion: helpText([], "remote-config whoami --json"))

    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        try await runAdmin {
            let me = try await connection.client().me()
            if connection.json { return try Output.json(me) }
            if let user = me.user {
                let name = user.displayName.isEmpty ? "" : " (\(TerminalText.field(user.displayName)))"
                Output.line("Person:  \(TerminalText.field(user.email))\(name), \(user.name)")
                if !user.groups.isEmpty {
                    Output.line("Groups:  \(user.groups.map(TerminalText.field).joined(separator: ", "))")
                }
            }
            if let key = me.key {
                Output.line("Key:     \(TerminalText.field(key.displayName)) (\(key.name)), \(key.role)")
            }
            let roles = me.roles.map { "\($0.role) on \($0.project ?? "every project")" }
            Output.line(
                "Roles:   \(roles.isEmpty ? "none yet: ask an admin of this server" : roles.joined(separator: "; "))")
            if let expires = me.sessionExpireTime { Output.line("Until:   \(RFC3339.format(expires))") }
        }
    }
}
