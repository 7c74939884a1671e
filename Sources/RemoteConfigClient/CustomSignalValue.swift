import Foundation

/// A custom signal sent with fetches, matched by `app.customSignal['key']` conditions.
public enum CustomSignalValue: Sendable, Hashable, Codable {
    /// A text signal.
    case string(String)
    /// A whole-number signal.
    case integer(Int)
    /// A decimal signal.
    case double(Double)

    /// Decodes a JSON string or number.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let integer = try? container.decode(Int.self) {
            self = .integer(integer)
        } else if let double = try? container.decode(Double.self) {
            self = .double(double)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Encodes as a JSON string or number.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .integer(let integer): try container.encode(integer)
        case .double(let double): try container.encode(double)
        }
    }
}

extension CustomSignalValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// A text signal from a literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// A whole-number signal from a literal.
    public init(integerLiteral value: Int) { self = .integer(value) }
    /// A decimal signal from a literal.
    public init(floatLiteral value: Double) { self = .double(value) }
}
