/// The rule that keeps a rollout's condition (`rollout_<id>`) its own, checked on every write of a template
/// against the rollouts of its project that have the names it uses. A live (running or paused) rollout's
/// condition may be kept, but only the rollout's parameter may have a value for it; a proposed rollout's
/// condition is published only by the change request that starts it; a halted or completed rollout's condition
/// is dropped, with every value for it, so it never reaches apps again whatever path publishes. A name no
/// rollout of the project has is an ordinary condition (a Firebase export may well have a `rollout_10`).
/// Anything refused may still stay where the published template already has it, so a template from before
/// this rule can be published as it is.
public struct RolloutConditions: Sendable, Equatable {
    /// What every rollout's condition name starts with.
    public static let prefix = "rollout_"

    /// Live rollouts' conditions, each with the parameter it rolls out.
    public var live: [String: String]
    /// The conditions of proposed rollouts, each with the parameter it is to roll out.
    public var proposed: [String: String]
    /// The conditions of halted and completed rollouts.
    public var ended: Set<String>

    /// The rollouts a write is checked against.
    public init(live: [String: String] = [:], proposed: [String: String] = [:], ended: Set<String> = []) {
        self.live = live
        self.proposed = proposed
        self.ended = ended
    }

    /// The rollout id whose condition `name` would be (`rollout_12`: 12); nil for a name no rollout's condition
    /// has.
    public static func id(of name: String) -> Int64? {
        guard name.hasPrefix(prefix), let id = Int64(name.dropFirst(prefix.count)), id >= 1,
            RolloutTemplate.conditionName(id: id) == name
        else { return nil }
        return id
    }

    /// The names `template` uses, as conditions or as keys of conditional values, that a rollout's condition
    /// could have.
    public static func names(in template: RemoteConfigTemplate) -> Set<String> {
        var names = Set(template.conditions.lazy.map(\.name).filter { id(of: $0) != nil })
        for item in template.allParameters {
            names.formUnion(item.parameter.conditionalValues.keys.lazy.filter { id(of: $0) != nil })
        }
        return names
    }

    /// What a write keeps of a template, and what it refuses.
    public struct Outcome: Sendable, Equatable {
        /// The template without the conditions of ended rollouts and the values for them.
        public var template: RemoteConfigTemplate
        /// The ended rollouts' conditions that were dropped, in the template's order.
        public var dropped: [String]
        /// Why the write is refused (empty: it is not), each naming the field of the template at fault.
        public var issues: [ValidationIssue]
    }

    /// Checks `template` as a write of it over `previous` (the template published now; nil: treat as having
    /// none of these names) may keep it.
    public func check(_ template: RemoteConfigTemplate, over previous: RemoteConfigTemplate?) -> Outcome {
        let previousConditions = Set(previous?.conditions.map(\.name) ?? [])
        var previousValues: Set<[String]> = []
        for item in previous?.allParameters ?? [] {
            for name in item.parameter.conditionalValues.keys { previousValues.insert([item.key, name]) }
        }
        var issues: [ValidationIssue] = []
        var dropped: [String] = []
        var refused: Set<String> = []
        for (index, condition) in template.conditions.enumerated() {
            if ended.contains(condition.name) {
                dropped.append(condition.name)
            } else if proposed[condition.name] != nil, !previousConditions.contains(condition.name) {
                refused.insert(condition.name)
                issues.append(
                    ValidationIssue(
                        field: "conditions[\(index)].name", reason: "RESERVED_CONDITION_NAME",
                        message:
                            "\(condition.name) is the condition of a rollout waiting for approval; only the change request that starts it publishes it"
                    ))
            }
        }
        var dropsValues = false
        for item in template.allParameters {
            let path = item.group.map { "parameterGroups.\($0).parameters.\(item.key)" } ?? "parameters.\(item.key)"
            for name in item.parameter.conditionalValues.keys {
                if ended.contains(name) {
                    dropsValues = true
                    continue
                }
                let why: String
                if let owner = live[name] {
                    guard owner != item.key else { continue }
                    why =
                        "it is the condition of the rollout of \(owner), and only that parameter may have a value for it"
                } else if let owner = proposed[name] {
                    why =
                        "it is the condition of the rollout of \(owner) waiting for approval, which only the change request that starts it publishes"
                } else {
                    continue
                }
                guard !refused.contains(name), !previousValues.contains([item.key, name]) else { continue }
                issues.append(
                    ValidationIssue(
                        field: "\(path).conditionalValues.\(name)", reason: "RESERVED_CONDITION_REFERENCE",
                        message: "\(item.key) cannot have a value for \(name): \(why)"))
            }
        }
        var kept = template
        if !dropped.isEmpty || dropsValues { kept = RolloutTemplate.removing(ended, from: template) }
        return Outcome(template: kept, dropped: dropped, issues: issues)
    }
}
