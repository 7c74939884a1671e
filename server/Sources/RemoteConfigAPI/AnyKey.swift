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

    /// Refuses the first member of the object `decoder` is at that is not in `known`: `UNKNOWN_FIELD`, with
    /// `message` (what the route takes) after the member's name.
    public static func refuseUnknown(in decoder: any Decoder, known: Set<String>, _ message: String) throws {
        let sent = try decoder.container(keyedBy: AnyKey.self).allKeys
        guard let key = sent.first(where: { !known.contains($0.stringValue) }) else { return }
        throw FieldProblem.at([key], of: decoder, FieldProblem(reason: "UNKNOWN_FIELD", message))
    }
}
