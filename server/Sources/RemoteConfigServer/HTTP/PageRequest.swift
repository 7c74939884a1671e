import Hummingbird

/// The `pageSize` and `pageToken` of a list route: how many to answer, and the token of where to continue.
struct PageRequest<Token> {
    let size: Int
    /// The token read from `pageToken`; nil for the first page.
    let token: Token?

    /// Reads them from `request`'s query: `pageSize` 1 to `maximum` (`defaultSize` when absent), a 400 naming it
    /// otherwise; `pageToken` through `read`, which throws the 400 for a token this route never issued.
    init(_ request: Request, maximum: Int, defaultSize: Int = 50, token read: (String) throws -> Token) throws {
        let parameters = request.uri.queryParameters
        var size = defaultSize
        if let text = parameters.get("pageSize") {
            guard let value = Int(text), (1...maximum).contains(value) else {
                throw APIError.invalidField("pageSize", reason: "INVALID_PAGE_SIZE", "pageSize must be 1 to \(maximum)")
            }
            size = value
        }
        self.size = size
        self.token = try parameters.get("pageToken").map(read)
    }
}

extension PageRequest where Token == Int64 {
    /// Reads a page of a list continued below a number (the last id, seq or version number of the page before).
    init(_ request: Request, maximum: Int, defaultSize: Int = 50) throws {
        try self.init(request, maximum: maximum, defaultSize: defaultSize) { text in
            guard let value = Int64(text) else {
                throw APIError.invalidField("pageToken", reason: "INVALID_PAGE_TOKEN", "pageToken is not one we issued")
            }
            return value
        }
    }

    /// The number the page continues below.
    var before: Int64? { token }
}
