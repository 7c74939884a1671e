/// A JSON value that keeps object key order and the exact text of numbers.
///
/// Foundation's `JSONDecoder` loses key order on Linux, and key order is meaningful in a
/// Remote Config template (parameter order, `conditionalValues` order), so templates are read
/// and written through this type instead.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    /// A number, kept as its JSON text so that it re-encodes byte for byte.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// Parses one JSON text (RFC 8259, strict) from UTF-8 bytes.
    public init(parsing bytes: some Collection<UInt8>) throws(JSONParseError) {
        self = try JSONParser.parse(Array(bytes))
    }

    /// Parses one JSON text from a string.
    public init(parsing text: String) throws(JSONParseError) {
        self = try JSONParser.parse(Array(text.utf8))
    }

    /// Creates a number from an integer.
    public static func integer(_ value: Int) -> JSONValue { .number(String(value)) }

    /// The string payload, if this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The boolean payload, if this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The object payload, if this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The array payload, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The number as a `Double`, if this is a number.
    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// A short name of the JSON type, for error messages.
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }

    /// Looks up a member when this is an object; `nil` otherwise.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

/// A JSON object: members in document order, with keyed lookup.
public struct JSONObject: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// One `"key": value` member.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        /// Creates a member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in document order; keys are unique.
    public private(set) var members: [Member]

    /// Creates an empty object.
    public init() {
        members = []
    }

    /// Creates an object from members; a repeated key replaces the earlier value in place.
    public init(_ members: [Member]) {
        self.members = []
        self.members.reserveCapacity(members.count)
        for member in members { self[member.key] = member.value }
    }

    /// Creates an object from a literal, keeping the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements.map { Member(key: $0.0, value: $0.1) })
    }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }

    /// Reads, replaces (in place), appends, or with `nil` removes a member.
    public subscript(key: String) -> JSONValue? {
        get {
            // Linear search: objects in templates are small, except `parameters`, which is
            // read once when a template is decoded.
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            let index = members.firstIndex { $0.key == key }
            switch (index, newValue) {
            case (let index?, let value?): members[index].value = value
            case (let index?, nil): members.remove(at: index)
            case (nil, let value?): members.append(Member(key: key, value: value))
            case (nil, nil): break
            }
        }
    }

    /// Makes room for `count` members.
    mutating func reserveCapacity(_ count: Int) {
        members.reserveCapacity(count)
    }

    /// Appends a member without checking for an existing key (the caller guarantees uniqueness).
    mutating func appendUnchecked(key: String, value: JSONValue) {
        members.append(Member(key: key, value: value))
    }

    /// Iterates members in document order.
    public func makeIterator() -> IndexingIterator<[Member]> {
        members.makeIterator()
    }
}
