import Foundation
import RemoteConfigCore

/// Seeded random template histories for the promotion property tests: a base template, and the edits that
/// turn it into a source or a target.
///
/// Condition names and expressions are never reused within a history, so two conditions mean the same only
/// when they are the same condition: what a real history looks like, and what lets the properties be exact.
public struct PromotionHistory {
    public var random: SeededGenerator
    private var usedExpressions: Set<String> = []
    private var conditionCount = 0

    public static let keys = (0..<12).map { "p\($0)" }
    public static let groups: [String?] = [nil, nil, "g0", "g1"]
    public static let versions = ["1.0.0", "1.5.0", "2.0.0", "2.1.0", "3.0.0"]

    public init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }
    public mutating func pick<Element>(_ items: [Element]) -> Element { items.randomElement(using: &random)! }

    // MARK: Conditions

    private mutating func atom() -> String {
        switch int(0...3) {
        case 0: "device.os \(pick(["==", "!="])) '\(pick(["ios", "android", "web"]))'"
        case 1: "app.version.\(pick([">=", "<"]))(['\(pick(Self.versions))'])"
        case 2: "percent \(pick(["<=", ">"])) \(pick([10, 20, 30, 40, 50, 60, 70, 80, 90]))"
        default: "device.country in [\(pick(["'us'", "'gb'", "'jp'", "'us', 'gb'", "'de'"]))]"
        }
    }

    public mutating func freshExpression() -> String {
        while true {
            let expression = chance(0.5) ? atom() : atom() + " && " + atom()
            if usedExpressions.insert(expression).inserted { return expression }
        }
    }

    public mutating func newCondition() -> Condition {
        conditionCount += 1
        return Condition(
            name: "c\(conditionCount)", expression: freshExpression(),
            tagColor: chance(0.5) ? pick(["BLUE", "RED"]) : nil)
    }

    // MARK: Parameters

    public mutating func value(_ type: ValueType) -> ParameterValue {
        if chance(0.1) { return .useInAppDefault }
        switch type {
        case .number: return .value(pick(["1", "2", "3"]))
        case .boolean: return .value(pick(["true", "false"]))
        default: return .value(pick(["a", "b", "c"]))
        }
    }

    public mutating func parameter(_ conditions: [Condition]) -> Parameter {
        let type = pick([ValueType.string, .number, .boolean])
        var parameter = Parameter(
            defaultValue: chance(0.9) ? value(type) : nil, valueType: type,
            description: chance(0.3) ? pick(["d1", "d2"]) : nil)
        for condition in conditions where chance(0.3) { parameter.conditionalValues[condition.name] = value(type) }
        return parameter
    }

    public mutating func base() -> RemoteConfigTemplate {
        var template = RemoteConfigTemplate()
        template.conditions = (0..<int(0...5)).map { _ in newCondition() }
        for key in Self.keys where chance(0.6) {
            template.insert(key, parameter(template.conditions), group: pick(Self.groups))
        }
        if !template.parameterGroups.isEmpty && chance(0.5) {
            template.parameterGroups[template.parameterGroups.keys[0]]?.description = "group"
        }
        return template
    }

    /// A random request: sometimes an explicit list, local parameters, or overwriting.
    public mutating func request() -> PromotionRequest {
        var request = PromotionRequest()
        if chance(0.3) { request.parameters = Self.keys.filter { _ in chance(0.4) } + (chance(0.2) ? ["zz"] : []) }
        if chance(0.3) { request.localParameters = Set(Self.keys.filter { _ in chance(0.15) }) }
        request.overwriteTargetChanges = chance(0.25)
        return request
    }

    /// A caller as a fetch sees it, varying what the generated conditions read.
    public mutating func context() -> FetchContext {
        FetchContext(
            appInstanceId: "instance-\(int(0...1_000_000))", platform: chance(0.9) ? pick(Platform.allCases) : nil,
            appVersion: chance(0.9) ? pick(Self.versions + ["0.9.0", "2.5.0"]) : nil,
            countryCode: chance(0.9) ? pick(["us", "gb", "jp", "de", "fr"]) : nil,
            now: Date(timeIntervalSince1970: 1_800_000_000))
    }

    // MARK: Edits

    /// `template` after `count` random edits.
    public mutating func edited(_ template: RemoteConfigTemplate, count: Int) -> RemoteConfigTemplate {
        var result = template
        for _ in 0..<count { edit(&result) }
        return result
    }

    /// One random edit of the kinds people make: values, descriptions, types, keys, groups and conditions.
    public mutating func edit(_ template: inout RemoteConfigTemplate) {
        let present = template.allParameters.map(\.key)
        let kind = int(0...12)
        if kind <= 7, let key = present.isEmpty ? nil : pick(present) {
            editParameter(&template, key, kind: kind)
            return
        }
        switch kind {
        case 8:
            let condition = newCondition()
            template.conditions.insert(condition, at: int(0...template.conditions.count))
            for key in present where chance(0.4) {
                let type = template.parameter(key)!.valueType
                let chosen = value(type)
                template.update(key) { $0.conditionalValues[condition.name] = chosen }
            }
        case 9 where !template.conditions.isEmpty:
            template.conditions[int(0...template.conditions.count - 1)].expression = freshExpression()
        case 10 where !template.conditions.isEmpty:
            let removed = template.conditions.remove(at: int(0...template.conditions.count - 1))
            for key in present { template.update(key) { $0.conditionalValues[removed.name] = nil } }
        case 11 where !template.conditions.isEmpty:
            let moved = template.conditions.remove(at: int(0...template.conditions.count - 1))
            template.conditions.insert(moved, at: int(0...template.conditions.count))
        case 12 where !template.conditions.isEmpty:
            template.conditions[int(0...template.conditions.count - 1)].tagColor = pick(["GREEN", "PURPLE"])
        default:
            let absent = Self.keys.filter { template.parameter($0) == nil }
            if !absent.isEmpty { editParameter(&template, pick(absent), kind: 4) }
        }
    }

    /// One edit of one parameter: 0 default, 1 description, 2 set or 3 remove a conditional value, 4 add (or
    /// replace), 5 remove, 6 move to another group, 7 change the type and every value.
    public mutating func editParameter(_ template: inout RemoteConfigTemplate, _ key: String, kind: Int) {
        guard let parameter = template.parameter(key), kind != 4 else {
            template.remove(key)
            template.insert(key, self.parameter(template.conditions), group: pick(Self.groups))
            return
        }
        switch kind {
        case 0:
            let chosen = value(parameter.valueType)
            template.update(key) { $0.defaultValue = chosen }
        case 1:
            let description = pick(["d1", "d2", "d3"])
            template.update(key) { $0.description = description }
        case 2 where !template.conditions.isEmpty:
            let name = pick(template.conditions).name
            let chosen = value(parameter.valueType)
            template.update(key) { $0.conditionalValues[name] = chosen }
        case 3 where !parameter.conditionalValues.isEmpty:
            let name = pick(parameter.conditionalValues.keys)
            template.update(key) { $0.conditionalValues[name] = nil }
        case 5:
            template.remove(key)
        case 6:
            template.remove(key)
            template.insert(key, parameter, group: pick(Self.groups))
        default:
            var changed = Parameter(valueType: pick([ValueType.string, .number, .boolean]))
            changed.defaultValue = parameter.defaultValue == nil ? nil : value(changed.valueType)
            for name in parameter.conditionalValues.keys { changed.conditionalValues[name] = value(changed.valueType) }
            changed.description = parameter.description
            template.update(key) { $0 = changed }
        }
    }
}

extension RemoteConfigTemplate {
    /// The parameter of `key`, top-level or in a group.
    public func parameter(_ key: String) -> Parameter? {
        allParameters.first { $0.key == key }?.parameter
    }

    /// Where `key` is and what it is: equal only when both are the same.
    public func placement(_ key: String) -> (group: String?, parameter: Parameter)? {
        allParameters.first { $0.key == key }.map { ($0.group, $0.parameter) }
    }

    /// Every condition name a conditional value refers to.
    public var referencedConditions: Set<String> {
        Set(allParameters.flatMap(\.parameter.conditionalValues.keys))
    }

    public mutating func update(_ key: String, _ change: (inout Parameter) -> Void) {
        if parameters[key] != nil {
            change(&parameters[key]!)
            return
        }
        for name in parameterGroups.keys where parameterGroups[name]!.parameters[key] != nil {
            change(&parameterGroups[name]!.parameters[key]!)
        }
    }

    public mutating func remove(_ key: String) {
        parameters[key] = nil
        for name in parameterGroups.keys { parameterGroups[name]!.parameters[key] = nil }
    }

    public mutating func insert(_ key: String, _ parameter: Parameter, group: String?) {
        guard let group else {
            parameters[key] = parameter
            return
        }
        if parameterGroups[group] == nil { parameterGroups[group] = ParameterGroup() }
        parameterGroups[group]!.parameters[key] = parameter
    }
}
