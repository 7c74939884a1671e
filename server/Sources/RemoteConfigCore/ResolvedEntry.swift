/// One served key and its value.
public struct ResolvedEntry: Sendable, Hashable {
    /// The parameter key.
    public var key: String
    /// The value, a string as Firebase sends it.
    public var value: String

    /// Creates an entry.
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }
}
