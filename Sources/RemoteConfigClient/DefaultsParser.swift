import Foundation

/// Turns in-app defaults (a dictionary, or the files `remoteConfig:downloadDefaults` produces) into string values.
///
/// Values are stored as text, as the server sends them: booleans become `true`/`false`, numbers their decimal
/// text, nested arrays and objects their JSON text, data its UTF-8 text and dates ISO 8601.
enum DefaultsParser {
    /// Parses a property list whose root is a dictionary.
    static func parsePropertyList(_ data: Data) throws -> [String: String] {
        try PropertyListDecoder().decode([String: DefaultsNode].self, from: data).compactMapValues(\.topLevelText)
    }

    /// Parses a JSON object.
    static func parseJSON(_ data: Data) throws -> [String: String] {
        try JSONDecoder().decode([String: DefaultsNode].self, from: data).compactMapValues(\.topLevelText)
    }

    /// Parses a file by its extension (`.plist` or `.json`), or by sniffing its first byte.
    static func parseFile(at url: URL) throws -> [String: String] {
        let data = try Data(contentsOf: url)
        switch url.pathExtension.lowercased() {
        case "plist": return try parsePropertyList(data)
        case "json": return try parseJSON(data)
        default:
            let firstByte = data.first { !(Character(UnicodeScalar($0)).isWhitespace) }
            return firstByte == UInt8(ascii: "{") ? try parseJSON(data) : try parsePropertyList(data)
        }
    }

    /// Converts the values of a defaults dictionary as given by app code.
    static func strings(from dictionary: [String: Any]) -> [String: String] {
        dictionary.compactMapValues(text(of:))
    }

    /// The text of one value, or `nil` for `NSNull` and optionals holding nothing.
    static func text(of value: Any) -> String? {
        if let text = value as? String { return text }
        if type(of: value) == Bool.self, let flag = value as? Bool { return flag ? "true" : "false" }
        if type(of: value) is NSNumber.Type, let number = value as? NSNumber {
            // A boolean NSNumber (from JSONSerialization or PropertyListSerialization) is the shared
            // __NSCFBoolean class on every platform; other NSNumbers are numbers.
            if String(describing: type(of: number)) == "__NSCFBoolean" { return number.boolValue ? "true" : "false" }
            return number.stringValue
        }
        if let integer = value as? any BinaryInteger { return "\(integer)" }
        if let floating = value as? any BinaryFloatingPoint { return "\(floating)" }
        if let data = value as? Data { return String(decoding: data, as: UTF8.self) }
        if let date = value as? Date { return ISO8601DateFormatter().string(from: date) }
        if value is NSNull { return nil }
        if JSONSerialization.isValidJSONObject(value),
            let json = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
        {
            return String(decoding: json, as: UTF8.self)
        }
        return String(describing: value)
    }
}

/// One value of a defaults file, decoded from JSON or a property list.
private indirect enum DefaultsNode: Decodable {
    case string(String)
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case data(Data)
    case date(Date)
    case array([DefaultsNode])
    case object([String: DefaultsNode])
    case null

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            var object: [String: DefaultsNode] = [:]
            for key in container.allKeys {
                object[key.stringValue] = try container.decode(DefaultsNode.self, forKey: key)
            }
            self = .object(object)
            return
        }
        if var container = try? decoder.unkeyedContainer() {
            var array: [DefaultsNode] = []
            while !container.isAtEnd {
                array.append(try container.decode(DefaultsNode.self))
            }
            self = .array(array)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else if let date = try? container.decode(Date.self) {
            self = .date(date)
        } else {
            self = .data(try container.decode(Data.self))
        }
    }

    /// The text of a top-level value; `nil` for `null`, which sets no default.
    var topLevelText: String? {
        if case .null = self { return nil }
        return text
    }

    /// The value as the server would send it.
    var text: String {
        switch self {
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let integer): return String(integer)
        case .double(let double):
            return double == double.rounded() && abs(double) < 1e15 ? String(Int64(double)) : "\(double)"
        case .data(let data): return String(decoding: data, as: UTF8.self)
        case .date(let date): return ISO8601DateFormatter().string(from: date)
        case .null: return ""
        case .array, .object:
            let data = (try? JSONSerialization.data(withJSONObject: jsonObject, options: [.sortedKeys])) ?? Data()
            return String(decoding: data, as: UTF8.self)
        }
    }

    private var jsonObject: Any {
        switch self {
        case .string(let text): return text
        case .bool(let flag): return flag
        case .integer(let integer): return integer
        case .double(let double): return double
        case .data, .date: return text
        case .null: return NSNull()
        case .array(let array): return array.map(\.jsonObject)
        case .object(let object): return object.mapValues(\.jsonObject)
        }
    }
}

private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
