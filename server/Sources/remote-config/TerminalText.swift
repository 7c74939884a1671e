import Foundation
import RemoteConfigServer

/// Text on its way to a person's terminal. Descriptions, condition names and other text that other keys stored
/// reach it, and a terminal acts on control characters in them (OSC 52 writes the clipboard, CSI clears the
/// screen, CR overwrites a line), so they are shown escaped (`\u{1B}`, `\r`), as the server's log lines show
/// them. `--json` output does not go through here: it is data, and stays exact.
enum TerminalText {
    /// One field, shown on one line: every control character escaped, line feeds included.
    static func field(_ text: String) -> String { EscapingLogHandler.escape(text) }

    /// Lines of ours with fields in them: every control character escaped but the line feeds between the lines.
    static func lines(_ text: String) -> String {
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false)
            .map { EscapingLogHandler.escape(String(String.UnicodeScalarView($0))) }
            .joined(separator: "\n")
    }
}
