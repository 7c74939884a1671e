/// What changed between two templates: parameters and conditions added, removed and changed, each
/// with its JSON before and after, and which aspects of it changed.
public struct TemplateDiff: Sendable, Hashable {
    /// One added, removed or changed item.
    public struct Change: Sendable, Hashable {
        /// The parameter key or condition name.
        public var name: String
        public var before: JSONValue?
        public var after: JSONValue?
        /// For changed items: which aspects differ (`defaultValue`, `conditionalValues`, `valueType`,
        /// `description`, `group`; for conditions `expression`, `tagColor`, `position`).
        public var aspects: [String]
    }

    public var parametersAdded: [Change] = []
    public var parametersRemoved: [Change] = []
    public var parametersChanged: [Change] = []
    public var conditionsAdded: [Change] = []
    public var conditionsRemoved: [Change] = []
    public var conditionsChanged: [Change] = []
    /// Whether the evaluation order of the conditions both templates share changed.
    public var conditionOrderChanged = false

    /// Whether the templates are the same in what a fetch can see.
    public var isEmpty: Bool {
        parametersAdded.isEmpty && parametersRemoved.isEmpty && parametersChanged.isEmpty && conditionsAdded.isEmpty
            && conditionsRemoved.isEmpty && conditionsChanged.isEmpty && !conditionOrderChanged
    }

    /// Compares `before` with `after`.
    public init(from before: RemoteConfigTemplate, to after: RemoteConfigTemplate) {
        let old = Self.flatten(before)
        let new = Self.flatten(after)
        for (key, entry) in old.ordered where new.entries[key] == nil {
            parametersRemoved.append(Change(name: key, before: entry.json, after: nil, aspects: []))
        }
        for (key, entry) in new.ordered {
            guard let previous = old.entries[key] else {
                parametersAdded.append(Change(name: key, before: nil, after: entry.json, aspects: []))
                continue
            }
            let aspects = Self.parameterAspects(previous, entry)
            if !aspects.isEmpty {
                parametersChanged.append(Change(name: key, before: previous.json, after: entry.json, aspects: aspects))
            }
        }

        let oldConditions = Dictionary(
            before.conditions.enumerated().map { ($1.name, ($0, $1)) }, uniquingKeysWith: { first, _ in first })
        let newConditions = Dictionary(
            after.conditions.enumerated().map { ($1.name, ($0, $1)) }, uniquingKeysWith: { first, _ in first })
        for condition in before.conditions where newConditions[condition.name] == nil {
            conditionsRemoved.append(
                Change(name: condition.name, before: .object(condition.jsonObject), after: nil, aspects: []))
        }
        let sharedOld = before.conditions.map(\.name).filter { newConditions[$0] != nil }
        let sharedNew = after.conditions.map(\.name).filter { oldConditions[$0] != nil }
        conditionOrderChanged = sharedOld != sharedNew
        // A repeated name (only in a template that fails validation) is compared once, by its first
        // occurrence, as the lookups above and conditional values do; otherwise a template would
        // differ from itself.
        var compared = Set<String>()
        for condition in after.conditions where compared.insert(condition.name).inserted {
            guard let (_, previous) = oldConditions[condition.name] else {
                conditionsAdded.append(
                    Change(name: condition.name, before: nil, after: .object(condition.jsonObject), aspects: []))
                continue
            }
            var aspects: [String] = []
            if previous.expression != condition.expression { aspects.append("expression") }
            if previous.tagColor != condition.tagColor { aspects.append("tagColor") }
            if sharedOld.firstIndex(of: condition.name) != sharedNew.firstIndex(of: condition.name) {
                aspects.append("position")
            }
            if previous.extra != condition.extra { aspects.append("other") }
            if !aspects.isEmpty {
                conditionsChanged.append(
                    Change(
                        name: condition.name, before: .object(previous.jsonObject),
                        after: .object(condition.jsonObject), aspects: aspects))
            }
        }
    }

    private struct Entry {
        var parameter: Parameter
        var group: String?
        var json: JSONValue {
            var object = parameter.jsonObject
            if let group { object["parameterGroup"] = .string(group) }
            return .object(object)
        }
    }

    private static func flatten(_ template: RemoteConfigTemplate) -> (
        ordered: [(String, Entry)], entries: [String: Entry]
    ) {
        var ordered: [(String, Entry)] = []
        var entries: [String: Entry] = [:]
        for item in template.allParameters where entries[item.key] == nil {
            let entry = Entry(parameter: item.parameter, group: item.group)
            ordered.append((item.key, entry))
            entries[item.key] = entry
        }
        return (ordered, entries)
    }

    private static func parameterAspects(_ old: Entry, _ new: Entry) -> [String] {
        var aspects: [String] = []
        if old.parameter.defaultValue != new.parameter.defaultValue { aspects.append("defaultValue") }
        // Evaluation follows the template's condition order, so the order of this map means nothing.
        func unordered(_ map: OrderedStringMap<ParameterValue>) -> [String: ParameterValue] {
            Dictionary(zip(map.keys, map.values), uniquingKeysWith: { first, _ in first })
        }
        if unordered(old.parameter.conditionalValues) != unordered(new.parameter.conditionalValues) {
            aspects.append("conditionalValues")
        }
        if old.parameter.valueType != new.parameter.valueType { aspects.append("valueType") }
        if old.parameter.description != new.parameter.description { aspects.append("description") }
        if old.group != new.group { aspects.append("group") }
        if old.parameter.extra != new.parameter.extra { aspects.append("other") }
        return aspects
    }

    /// The diff as the JSON object `:diff` answers with.
    public var jsonObject: JSONObject {
        func list(_ changes: [Change]) -> JSONValue {
            .array(
                changes.map { change in
                    var object: JSONObject = ["name": .string(change.name)]
                    if let before = change.before { object["before"] = before }
                    if let after = change.after { object["after"] = after }
                    if !change.aspects.isEmpty { object["changedFields"] = .array(change.aspects.map { .string($0) }) }
                    return .object(object)
                })
        }
        return [
            "parameters": .object([
                "added": list(parametersAdded), "removed": list(parametersRemoved), "changed": list(parametersChanged),
            ]),
            "conditions": .object([
                "added": list(conditionsAdded), "removed": list(conditionsRemoved), "changed": list(conditionsChanged),
                "orderChanged": .bool(conditionOrderChanged),
            ]),
        ]
    }
}
