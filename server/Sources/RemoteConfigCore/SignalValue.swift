import Foundation
import RemoteConfigVersions

/// A custom signal or user property value: JSON sends a string or a number.
public enum SignalValue: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral
{
    case string(String)
    case number(Double)

    /// Creates a string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// Creates a number value.
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    /// Creates a number value.
    public init(floatLiteral value: Double) { self = .number(value) }

    /// Decodes a JSON string or number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Encodes as a JSON string or number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        }
    }

    /// The text that string methods and version comparisons see; `3` for the number 3.
    public var text: String {
        switch self {
        case .string(let text): return text
        case .number(let number):
            if number == number.rounded(), abs(number) < 9_007_199_254_740_992 { return String(Int64(number)) }
            return String(number)
        }
    }

    /// The number that numeric comparisons see: the number, or a string read as JavaScript's `Number()`
    /// reads it (as Firebase's evaluator does); `nil` where that is NaN.
    public var number: Double? {
        switch self {
        case .number(let number): return number
        case .string(let text): return JSNumber.parse(text)
        }
    }
}
