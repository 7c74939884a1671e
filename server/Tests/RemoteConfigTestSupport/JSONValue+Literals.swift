import RemoteConfigCore

// Literals for tests, so that a body or an expected answer reads as the JSON it stands for:
// `let template: JSONValue = ["parameters": ["x": ["defaultValue": ["value": "1"]]]]`.
// Objects keep the literal's member order; `nil` is JSON `null`.

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object, members in the literal's order.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array.
    public init(arrayLiteral elements: JSONValue...) {
        self = .array(elements)
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string.
    public init(stringLiteral value: String) {
        self = .string(value)
    }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// A whole number.
    public init(integerLiteral value: Int) {
        self = .number(String(value))
    }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A number, written as Swift writes the double (`0.5`, `1.0`).
    public init(floatLiteral value: Double) {
        self = .number(String(value))
    }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// `null` (an absent member is `nil` of `JSONValue?`, not this).
    public init(nilLiteral: ()) {
        self = .null
    }
}

extension JSONValue: ExpressibleByStringInterpolation {
    /// A string with interpolations: `"user-\(index)"`.
    public init(stringInterpolation: DefaultStringInterpolation) {
        self = .string(String(stringInterpolation: stringInterpolation))
    }
}
