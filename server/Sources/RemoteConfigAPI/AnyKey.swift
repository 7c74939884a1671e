/// Any member name, to list the members a body sent (and refuse those a route does not know).
public struct AnyKey: CodingKey, Sendable, Hashable {
    public var stringValue: String
    public var intValue: Int? { nil }

    public init(stringValue: String) {
        self.stringValue = stringValue
    }

    public init?(intValue: Int) {
        return nil
    }
}
