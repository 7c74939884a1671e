import Foundation

/// An error answer: `{"error": {"code", "status", "message", "details": [{"field", "reason", "message"}]}}`.
public struct ServerError: Error, Sendable, CustomStringConvertible {
    /// One field at fault.
    public struct Detail: Sendable, Hashable {
        public var field: String?
        public var reason: String?
        public var message: String?

        /// Creates a detail.
        public init(field: String?, reason: String?, message: String?) {
            self.field = field
            self.reason = reason
            self.message = message
        }
    }

    /// The HTTP status code.
    public var code: Int
    /// `INVALID_ARGUMENT`, `NOT_FOUND`, … (empty when the body was not the API's error shape).
    public var status: String
    /// The server's sentence for a person.
    public var message: String
    public var details: [Detail]
    /// The raw body, for `--json`.
    public var body: [UInt8]

    /// Creates an error.
    public init(code: Int, status: String, message: String, details: [Detail], body: [UInt8] = []) {
        self.code = code
        self.status = status
        self.message = message
        self.details = details
        self.body = body
    }

    /// The message, then one line per field at fault: `  parameters.x.defaultValue.value: not a number (NOT_A_NUMBER)`.
    public var description: String {
        var lines = [message.isEmpty ? "the server answered \(code)" : message]
        for detail in details {
            var line = "  " + (detail.field ?? "")
            var explanation: [String] = []
            if let message = detail.message, !message.isEmpty { explanation.append(message) }
            if let reason = detail.reason, !reason.isEmpty {
                explanation.append(explanation.isEmpty ? reason : "(\(reason))")
            }
            if !explanation.isEmpty { line += (detail.field == nil ? "" : ": ") + explanation.joined(separator: " ") }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
