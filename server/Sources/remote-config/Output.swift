import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// Writing to the terminal: results on stdout, everything else (progress, notes, errors) on stderr.
enum Output {
    /// A line (or lines) for a person, control characters escaped: fields in it may be anyone's text.
    static func line(_ text: String = "") {
        FileHandle.standardOutput.write(Data((TerminalText.lines(text) + "\n").utf8))
    }

    /// A note for a person on stderr, escaped as `line` is (error messages quote what was sent).
    static func note(_ text: String) {
        FileHandle.standardError.write(Data((TerminalText.lines(text) + "\n").utf8))
    }

    /// Text written exactly as it is: JSON for programs (which escapes what it must itself), or a secret.
    static func raw(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
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
