import Foundation

/// One parameter's value with typed views, as Firebase's `RemoteConfigValue`.
///
/// The server sends every value as a string; the typed views interpret it the way Firebase's SDK does.
public struct RemoteConfigValue: Sendable, Hashable {
    /// The raw text of the value (empty for a static value).
    public let stringValue: String
    /// Where the value came from.
    public let source: RemoteConfigSource

    /// Creates a value from its text and source.
    public init(stringValue: String, source: RemoteConfigSource) {
        self.stringValue = stringValue
        self.source = source
    }

    /// `true` for `1`, `true`, `t`, `yes`, `y` and `on` in any case (surrounding spaces ignored), else `false`.
    public var boolValue: Bool {
        Self.truthyStrings.contains(stringValue.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
    }

    /// The value as a number; `0` when it is not a number.
    public var numberValue: NSNumber {
        NSNumber(value: doubleValue)
    }

    /// The value as a `Double`; `0` when it is not a finite number.
    public var doubleValue: Double {
        guard let number = Double(stringValue.trimmingCharacters(in: .whitespacesAndNewlines)), number.isFinite else {
            return 0
        }
        return number
    }

    /// The value as an `Int` (a fraction is truncated); `0` when it is not a number.
    public var intValue: Int {
        let text = stringValue.trimmingCharacters(in: .whitespacesAndNewlines)
        if let integer = Int(text) { return integer }
        let number = doubleValue
        guard number > Double(Int.min), number < Double(Int.max) else { return 0 }
        return Int(number)
    }

    /// The UTF-8 bytes of the value.
    public var dataValue: Data {
        Data(stringValue.utf8)
    }

    /// The value parsed as JSON (dictionaries, arrays, strings, numbers), or `nil` when it is not JSON.
    public var jsonValue: Any? {
        try? JSONSerialization.jsonObject(with: dataValue, options: [.fragmentsAllowed])
    }

    /// Decodes a JSON value into `type`.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: dataValue)
    }

    /// Firebase's spelling of `decode(_:)`: `try value.decoded(asType: Banner.self)`.
    public func decoded<T: Decodable>(asType type: T.Type = T.self, decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decode(type, decoder: decoder)
    }

    private static let truthyStrings: Set<String> = ["1", "true", "t", "yes", "y", "on"]
}
