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
        let inPlace = bytes.withContiguousStorageIfAvailable { Self.parse($0) }
        self = try (inPlace ?? Array(bytes).withUnsafeBufferPointer { Self.parse($0) }).get()
    }

    /// Parses one JSON text from a string.
    public init(parsing text: String) throws(JSONParseError) {
        var text = text
        self = try text.withUTF8 { Self.parse($0) }.get()
    }

    /// The parse of `bytes` as a result, which the buffer-lending closures above can return.
    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONParseError> {
        Result { () throws(JSONParseError) in try JSONParser.parse(bytes) }
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
