import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `--server`, `--token` and `--json`, shared by every admin command.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "The server's URL (RC_SERVER; default http://127.0.0.1:8080).")
    var server: String?

    @Option(help: "The admin API key to act with (RC_TOKEN).")
    var token: String?

    @Flag(help: "Print JSON for scripts instead of tables for people.")
    var json = false

    /// The default server when neither `--server` nor `RC_SERVER` says one.
    static let defaultServer = "http://127.0.0.1:8080"

    init() {}

    init(server: String?, token: String?) {
        self.server = server
        self.token = token
    }

    /// The chosen server's URL.
    func serverURL() throws -> URL {
        let environment = ProcessInfo.processInfo.environment
        let text = server ?? environment["RC_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultServer
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw CommandFailure(.usage, "--server / RC_SERVER: '\(text)' is not an http:// or https:// URL")
        }
        return url
    }

    /// A client of the chosen server with the chosen key: `--token`, else `RC_TOKEN`, else the personal token
    /// `remote-config login` saved for that server.
    func client(savedToken: Bool = true) throws -> AdminClient {
        let environment = ProcessInfo.processInfo.environment
        let url = try serverURL()
        var key = token ?? environment["RC_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if key == nil, savedToken { key = Credentials.load().servers[Credentials.key(url)]?.token }
        return AdminClient(server: url, token: key)
    }
}
