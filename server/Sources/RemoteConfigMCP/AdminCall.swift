import Foundation

/// One admin API request a tool makes: exactly what a person would send to `/v1/…`.
public struct AdminCall: Sendable, Equatable {
    public var method: String
    /// The path, its segments already percent-encoded (`/v1/projects/my-app/remoteConfig`).
    public var path: String
    public var query: [Query]
    /// The JSON body, if any.
    public var body: [UInt8]?
    /// `If-Match`, for the routes that take one.
    public var ifMatch: String?

    /// One query parameter.
    public struct Query: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    /// A call of `method` on `path`.
    public init(_ method: String, _ path: String, query: [Query] = [], body: [UInt8]? = nil, ifMatch: String? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.ifMatch = ifMatch
    }

    /// The path with its query, as a request line carries it.
    public var target: String {
        guard !query.isEmpty else { return path }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        let items = query.map { item in
            (item.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? item.name) + "="
                + (item.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? item.value)
        }
        return path + "?" + items.joined(separator: "&")
    }

    /// `segment` percent-encoded for a path (a project id that is not one is then the API's 404, not a new path).
    public static func segment(_ segment: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/:?#")
        return segment.addingPercentEncoding(withAllowedCharacters: allowed) ?? segment
    }
}

/// The admin API's answer to an `AdminCall`: its status and JSON body.
public struct AdminAnswer: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]

    /// An answer with `status` and `body`.
    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }

    /// Whether the API said yes (2xx).
    public var succeeded: Bool { (200..<300).contains(status) }
}

/// Makes admin API calls with the assistant's credentials: the server's own router in `/mcp`, HTTP in
/// `remote-config mcp`. Every call carries `X-RC-Via: mcp`, so the audit log records where it came from.
public protocol AdminCaller: Sendable {
    /// Sends `call` and returns whatever the API answered; throws only when no answer came.
    func send(_ call: AdminCall) async throws -> AdminAnswer
}

/// The header that marks an admin call as made by an assistant through MCP (the audit entry's `"via"`).
public enum AdminVia {
    /// The header's name.
    public static let header = "X-RC-Via"
    /// Its one value.
    public static let mcp = "mcp"
}
