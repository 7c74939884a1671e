import Logging

/// A log handler that escapes control characters in everything it passes on (message, metadata, source)
/// before `inner` formats the line. Log text carries values from outside (a store's answer, a request's
/// fields, a database error): a CR or LF in one must not start a line of its own that reads like the server's,
/// and an ESC must not reach a terminal as a command.
public struct EscapingLogHandler: LogHandler {
    public var inner: any LogHandler

    /// Wraps `inner`, which writes the escaped lines.
    public init(_ inner: any LogHandler) {
        self.inner = inner
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue.mapValues(Self.escape) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: Self.escape(key)] = newValue.map(Self.escape) }
    }

    public func log(event: LogEvent) {
        var escaped = event
        escaped.message = "\(Self.escape(event.message.description))"
        escaped.metadata = event.metadata.map { values in
            Dictionary(uniqueKeysWithValues: values.map { (Self.escape($0.key), Self.escape($0.value)) })
        }
        escaped.source = Self.escape(event.source)
        if let error = event.error { escaped.error = EscapedError(description: Self.escape("\(error)")) }
        inner.log(event: escaped)
    }

    /// An error as the inner handler may print it: its description, escaped.
    struct EscapedError: Error, CustomStringConvertible {
        let description: String
    }

    /// `text` with every C0 and C1 control character, DEL and the Unicode line and paragraph separators written
    /// as an escape (`\r`, `\n`, `\t`, `\u{1B}`), so one log call stays one line and prints no terminal command.
    public static func escape(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.append(scalar)
                continue
            }
            let written: String
            switch scalar {
            case "\n": written = "\\n"
            case "\r": written = "\\r"
            case "\t": written = "\\t"
            default: written = "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
            out.append(contentsOf: written.unicodeScalars)
        }
        return String(out)
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: true
        default: false
        }
    }

    static func escape(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
        switch value {
        case .string(let text): .string(escape(text))
        case .stringConvertible(let convertible): .string(escape(convertible.description))
        case .array(let values): .array(values.map(escape))
        case .dictionary(let values):
            .dictionary(Dictionary(uniqueKeysWithValues: values.map { (escape($0.key), escape($0.value)) }))
        }
    }
}
