/// A Remote Config template in Firebase's format: conditions, parameters, groups and version.
public struct RemoteConfigTemplate: Sendable, Hashable {
    /// Conditions in evaluation order.
    public var conditions: [Condition]
    /// Top-level parameters in order.
    public var parameters: OrderedStringMap<Parameter>
    /// Parameter groups in order; their parameters are served like top-level ones.
    public var parameterGroups: OrderedStringMap<ParameterGroup>
    /// Version metadata; `nil` in a template that has not been published.
    public var version: TemplateVersion?
    /// Top-level members this version does not know (e.g. `etag`), re-emitted unchanged.
    public var extra: JSONObject

    /// Creates a template; the default is the empty template served before the first publish.
    public init(
        conditions: [Condition] = [],
        parameters: OrderedStringMap<Parameter> = [:],
        parameterGroups: OrderedStringMap<ParameterGroup> = [:],
        version: TemplateVersion? = nil,
        extra: JSONObject = [:]
    ) {
        self.conditions = conditions
        self.parameters = parameters
        self.parameterGroups = parameterGroups
        self.version = version
        self.extra = extra
    }

    /// Every parameter, top-level first and then each group's, in order, with its group name.
    public var allParameters: [(key: String, parameter: Parameter, group: String?)] {
        var result: [(key: String, parameter: Parameter, group: String?)] = []
        result.reserveCapacity(parameters.count)
        for (key, parameter) in parameters { result.append((key, parameter, nil)) }
        for (groupName, group) in parameterGroups {
            for (key, parameter) in group.parameters { result.append((key, parameter, groupName)) }
        }
        return result
    }
}
