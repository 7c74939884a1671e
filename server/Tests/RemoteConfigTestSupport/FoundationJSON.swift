import Foundation
import RemoteConfigCore

/// JSON bytes of a Foundation object (`[String: Any]`, `[Any]`, strings, numbers) for the calls that still take
/// one; a `JSONValue` nested in it is written as the JSON it holds. Goes once every test builds bodies as
/// `JSONValue` or typed values.
public enum FoundationJSON {
    /// The bytes of `object`.
    static func data(_ object: Any) throws -> Data {
        try JSONSerialization.data(withJSONObject: foundation(object), options: [.fragmentsAllowed])
    }

    /// A Foundation object as a `JSONValue`.
    public static func value(_ object: Any) throws -> JSONValue {
        try JSONValue(parsing: [UInt8](try data(object)))
    }

    /// `value` as a Foundation object (`[:]` unless it is a JSON object).
    public static func object(_ value: JSONValue) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(value.jsonBytes()))) as? [String: Any] ?? [:]
    }

    private static func foundation(_ object: Any) throws -> Any {
        switch object {
        case let value as JSONValue:
            return try JSONSerialization.jsonObject(with: Data(value.jsonBytes()), options: [.fragmentsAllowed])
        case let dictionary as [String: Any]:
            return try dictionary.mapValues(foundation)
        case let array as [Any]:
            return try array.map(foundation)
        default:
            return object
        }
    }
}
