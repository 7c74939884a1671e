/// The body of every error answer, `{"error": {…}}` as Google APIs write it: what the server sends and what the
/// command line and the tests read.
public struct ErrorBody: Codable, Sendable, Equatable {
    /// The error itself.
    public var error: Content

    public init(error: Content) {
        self.error = error
    }

    /// The HTTP status, its Google API name, one sentence for a person and the fields at fault.
    public struct Content: Codable, Sendable, Equatable {
        public var code: Int
        public var status: String
        public var message: String
        public var details: [Detail]?

        public init(code: Int, status: String, message: String, details: [Detail]? = nil) {
            self.code = code
            self.status = status
            self.message = message
            self.details = details
        }
    }

    /// One field-level problem: the field's path in the request and a machine-readable reason.
    public struct Detail: Codable, Sendable, Equatable {
        public var field: String
        public var reason: String
        public var message: String?

        public init(field: String, reason: String, message: String? = nil) {
            self.field = field
            self.reason = reason
            self.message = message
        }
    }
}
