import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

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
