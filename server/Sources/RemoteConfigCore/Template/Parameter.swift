/// A parameter: a default value and values for conditions, in the order the user wrote them.
public struct Parameter: Sendable, Hashable {
    /// The value when no condition with a conditional value is true; `nil` means none.
    public var defaultValue: ParameterValue?
    /// Values keyed by condition name. This order is kept for round-trips but does not decide
    /// precedence: the order of the template's `conditions` does.
    public var conditionalValues: OrderedStringMap<ParameterValue>
    /// The declared type; `STRING` when the JSON omits it, as Firebase does.
    public var valueType: ValueType
    /// A note for people.
    public var description: String?
    /// Members this version does not know, re-emitted unchanged.
    public var extra: JSONObject

    /// Creates a parameter.
    public init(
        defaultValue: ParameterValue? = nil,
        conditionalValues: OrderedStringMap<ParameterValue> = [:],
        valueType: ValueType = .string,
        description: String? = nil,
        extra: JSONObject = [:]
    ) {
        self.defaultValue = defaultValue
        self.conditionalValues = conditionalValues
        self.valueType = valueType
        self.description = description
        self.extra = extra
    }
}
