import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// The exit statuses of the admin commands, as API.md lists them, so a CI step can tell failures apart.
enum ExitStatus: Int32 {
    case ok = 0
    /// Wrong usage: an unknown flag, a missing argument, a file that cannot be read.
    case usage = 1
    /// An invalid template or request (400).
    case invalid = 2
    /// A conflict (409, 412, or a file pulled at an older version than the published one).
    case conflict = 3
    /// The key was refused (401, 403).
    case refused = 4
    /// The server could not be reached, or answered 503 (or another 5xx).
    case unavailable = 5
    /// Not found (404).
    case notFound = 6
    /// A gate refused: `template impact --max-forced` found more newly required to update than allowed.
    case gateExceeded = 7

    /// The status for an error answer's HTTP code.
    init(httpStatus code: Int) {
        switch code {
        case 400, 413, 422: self = .invalid
        case 409, 412, 428: self = .conflict
        case 401, 403: self = .refused
        case 404: self = .notFound
        case 500...599, 429: self = .unavailable
        default: self = .usage
        }
    }
}

/// A failure the command line explains itself (a stale file, a missing parameter), with its exit status.
struct CommandFailure: Error {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }
}

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

    /// A client of the chosen server with the chosen key.
    func client() throws -> AdminClient {
        let environment = ProcessInfo.processInfo.environment
        let text = server ?? environment["RC_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultServer
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            url.host != nil
        else {
            throw CommandFailure(.usage, "--server / RC_SERVER: '\(text)' is not an http:// or https:// URL")
        }
        let key = token ?? environment["RC_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return AdminClient(server: url, token: key)
    }
}

/// `-p` / `--project`, for the commands on one project's template.
struct ProjectOption: ParsableArguments {
    @Option(name: [.customShort("p"), .long], help: "The project id.")
    var project: String
}

/// Writing to the terminal: results on stdout, everything else (progress, notes, errors) on stderr.
enum Output {
    static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    static func note(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Pretty JSON on stdout, members in the server's order.
    static func json(_ value: JSONValue) {
        FileHandle.standardOutput.write(Data(value.prettyJSONBytes()))
    }

    static func json(_ object: JSONObject) { json(.object(object)) }

    /// One of the API's bodies as pretty JSON, members in the order the server writes them.
    static func json(_ body: some Encodable) throws { json(try APIEncoder.encode(body)) }

    /// Whether stderr is a terminal, where progress lines make sense (not a CI log or a pipe).
    static var stderrIsTerminal: Bool { isatty(2) == 1 }
}

/// A progress line on stderr for operations that take a while, redrawn in place; silent unless stderr is a
/// terminal (`RC_PROGRESS=1` forces it, `RC_PROGRESS=0` silences it).
struct Progress {
    let enabled: Bool
    private(set) var shown = false

    init() {
        switch ProcessInfo.processInfo.environment["RC_PROGRESS"] {
        case "1": enabled = true
        case "0": enabled = false
        default: enabled = Output.stderrIsTerminal
        }
    }

    mutating func update(_ text: String) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K\(text)".utf8))
        shown = true
    }

    /// Clears the line (on a terminal), so results start at the left margin.
    mutating func finish() {
        guard enabled, shown else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
        shown = false
    }
}

/// A plain-text table: a header row and columns padded to their widest cell.
struct Table {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) { self.headers = headers }

    mutating func add(_ cells: String...) { rows.append(cells) }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func format(_ cells: [String]) -> String {
            var line = ""
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                line += isLast ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            // An empty last cell would leave the padding of the one before it.
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
        return ([format(headers)] + rows.map(format)).joined(separator: "\n")
    }

    func print() { Output.line(render()) }
}

extension JSONValue {
    /// A string member as text, or "" (for table cells).
    func text(_ key: String) -> String { self[key]?.stringValue ?? "" }
}

/// Runs an admin command's body, turning every failure into one sentence on stderr and its exit status.
func runAdmin(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as CommandFailure {
        Output.note("remote-config: error: \(failure.message)")
        throw ExitCode(failure.status.rawValue)
    } catch let error as AdminClientError {
        Output.note("remote-config: error: \(sentence(error))")
        throw ExitCode(status(of: error).rawValue)
    }
}

/// The exit status for an admin client error.
func status(of error: AdminClientError) -> ExitStatus {
    switch error {
    case .server(let server): return ExitStatus(httpStatus: server.code)
    case .unreachable: return .unavailable
    case .badResponse: return .unavailable
    }
}

/// The error as a person reads it: the server's sentence, what the status means, and each field at fault.
func sentence(_ error: AdminClientError) -> String {
    guard case .server(let server) = error else { return error.description }
    var text = server.description
    let reasons = Swift.Set(server.details.compactMap(\.reason))
    switch server.code {
    case 401: text += "\n  (check --token / RC_TOKEN)"
    case 403 where server.approvalRequired:
        text += "\n  (propose it with `remote-config changes create`; another key approves it)"
    case 403 where reasons.contains("APPROVAL_REQUIRED"):
        text += "\n  (another key approves it with `remote-config changes approve`)"
    case 403 where !reasons.isDisjoint(with: ["SELF_APPROVAL", "NOT_AUTHOR"]):
        break  // The server's sentence says who may.
    case 403: text += "\n  (this key's role or project does not allow it)"
    case 409 where reasons.contains("BASE_VERSION_CHANGED"):
        text += "\n  (see what it changes now with `remote-config changes show`, or publish it with --force)"
    case 503:
        text += "\n  (the server is up but cannot work now; try again shortly)"
    default: break
    }
    return text
}

extension ServerError {
    /// A publish refused because the project publishes only through approved change requests.
    var approvalRequired: Bool {
        code == 403 && details.contains { $0.field == "requireApproval" && $0.reason == "APPROVAL_REQUIRED" }
    }
}

/// A command's `--help` discussion: paragraphs (wrapped by ArgumentParser to the terminal), then examples,
/// one command a line.
func helpText(_ paragraphs: [String], _ examples: String...) -> String {
    let example = "Example:\n" + examples.map { "  " + $0 }.joined(separator: "\n")
    return (paragraphs + [example]).joined(separator: "\n\n")
}
