/// A JSON object whose members keep their order, for answers that list things in the template's order (a
/// `Dictionary` would write them in no fixed order).
public struct OrderedMembers<Value: Codable & Sendable & Equatable>: Codable, Sendable, Equatable {
    /// The members in document order; keys are unique.
    public private(set) var members: [(key: String, value: Value)]

    /// An empty object.
    public init() {
        members = []
    }

    /// The value of member `key`; setting appends a new key and replaces the value of an existing one in place.
    public subscript(key: String) -> Value? {
        get { members.first { $0.key == key }?.value }
        set {
            let index = members.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append((key, value))
            case (nil, nil): break
            }
        }
    }

    /// Adds member `key` at the end, for a caller whose keys are unique already (a template's parameters): no
    /// search, so building a large answer stays linear.
    public mutating func append(_ key: String, _ value: Value) {
        members.append((key, value))
    }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }

    /// The number of members.
    public var count: Int { members.count }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.members.elementsEqual(rhs.members) { $0.key == $1.key && $0.value == $1.value }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        // Through a member's own decoder, so an optional `Value` reads `null` as nil (`decode(_:forKey:)` refuses it).
        members = try container.allKeys.map { ($0.stringValue, try Value(from: container.superDecoder(forKey: $0))) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for member in members { try container.encode(member.value, forKey: AnyKey(stringValue: member.key)) }
    }
}
