import Foundation

/// Lines for the person who started the server, written unbuffered so they appear at once even in a pipe.
public enum Console {
    /// Writes `text` and a line feed to standard output at once.
    public static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
