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
