/// Who acted: the key (`apiKeys/<id>`, null for the server's own actions) and its name for people.
public struct ActingKey: Codable, Sendable, Equatable {
    public var key: String?
    public var displayName: String

    public init(key: String?, displayName: String) {
        self.key = key
        self.displayName = displayName
    }

    private enum CodingKeys: String, CodingKey { case key, displayName }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Written as null, not left out: the answers always had the member.
        try container.encode(key, forKey: .key)
        try container.encode(displayName, forKey: .displayName)
    }
}
