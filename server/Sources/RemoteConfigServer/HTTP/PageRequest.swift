import Hummingbird

/// The `pageSize` and `pageToken` of a list route, newest first: how many to answer, and the id to continue below.
struct PageRequest {
    let size: Int
    let before: Int64?

    /// Reads them from `request`'s query (`pageSize` 1 to `maximum`, default 50; `pageToken` a token we issued);
    /// a 400 naming the parameter otherwise.
    init(_ request: Request, maximum: Int) throws {
        let parameters = request.uri.queryParameters
        var size = 50
        if let text = parameters.get("pageSize") {
            guard let value = Int(text), (1...maximum).contains(value) else {
                throw APIError.invalidField("pageSize", reason: "INVALID_PAGE_SIZE", "pageSize must be 1 to \(maximum)")
            }
            size = value
        }
        var before: Int64?
        if let token = parameters.get("pageToken") {
            guard let value = Int64(token) else {
                throw APIError.invalidField("pageToken", reason: "INVALID_PAGE_TOKEN", "pageToken is not one we issued")
            }
            before = value
        }
        self.size = size
        self.before = before
    }
}
