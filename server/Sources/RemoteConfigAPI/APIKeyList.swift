/// `GET /v1/apiKeys`: the active keys, without secrets.
public struct APIKeyList: Codable, Sendable, Equatable {
    public var apiKeys: [APIKey]

    public init(apiKeys: [APIKey]) {
        self.apiKeys = apiKeys
    }
}
