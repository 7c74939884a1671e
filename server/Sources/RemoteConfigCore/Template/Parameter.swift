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

/// A named group of parameters; its parameters are served like top-level ones.
public struct ParameterGroup: Sendable, Hashable {
    /// A note for people.
    public var description: String?
    /// The group's parameters in order.
    public var parameters: OrderedStringMap<Parameter>
    /// Members this version does not know, re-emitted unchanged.
    public var extra: JSONObject

    /// Creates a group.
    public init(description: String? = nil, parameters: OrderedStringMap<Parameter> = [:], extra: JSONObject = [:]) {
        self.description = description
        self.parameters = parameters
        self.extra = extra
    }
}

/// A named condition as stored in the template; see `ConditionExpression` for its language.
public struct Condition: Sendable, Hashable {
    /// The name that `conditionalValues` refer to.
    public var name: String
    /// The expression text, e.g. `device.os == 'ios' && app.version.<(['2.0.0'])`.
    public var expression: String
    /// The console colour (`BLUE`, `ORANGE`, …); kept, never interpreted.
    public var tagColor: String?
    /// Members this version does not know, re-emitted unchanged.
    public var extra: JSONObject

    /// Creates a condition.
    public init(name: String, expression: String, tagColor: String? = nil, extra: JSONObject = [:]) {
        self.name = name
        self.expression = expression
        self.tagColor = tagColor
        self.extra = extra
    }
}
