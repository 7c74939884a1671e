/// Any member name or array index, to list the members a body sent (and refuse those a route does not know), or
/// to name an element in an error's path.
public struct AnyKey: CodingKey, Sendable, Hashable {
    public var stringValue: String
    public var intValue: Int?

    public init(stringValue: String) {
        self.stringValue = stringValue
    }

    public init(intValue: Int) {
        self.stringValue = String(intValue)
        self.intValue = intValue
    }

    /// The members of the object `decoder` is at that are not in `known`.
    public static func unknown(in decoder: any Decoder, known: Set<String>) throws -> [AnyKey] {
        try decoder.container(keyedBy: AnyKey.self).allKeys.filter { !known.contains($0.stringValue) }
    }
}
