import RemoteConfigCore
import Testing

/// What a rollout does to a template: its own condition first, the parameter's conditional value, and nothing
/// else; removing it gives back the template it started from.
@Suite struct RolloutTemplateTests {
    static let base = RemoteConfigTemplate(
        conditions: [Condition(name: "ios", expression: "device.os == 'ios'")],
        parameters: [
            "banner": Parameter(defaultValue: .value("hello"), conditionalValues: ["ios": .value("hi iOS")])
        ],
        parameterGroups: [
            "checkout": ParameterGroup(parameters: [
                "new_checkout": Parameter(defaultValue: .value("false"), valueType: .boolean)
            ])
        ])
    static let rollout = RolloutTemplate(
        parameter: "new_checkout", value: "true", audience: "device.os == 'ios' || app.id == 'x'",
        conditionName: "rollout_7")

    @Test func percentagesAreWrittenAsTheConditionLanguageReadsThem() {
        #expect(RolloutTemplate.format(percent: 1) == "1")
        #expect(RolloutTemplate.format(percent: 100) == "100")
        #expect(RolloutTemplate.format(percent: 0.5) == "0.5")
        #expect(RolloutTemplate.format(percent: 12.345678) == "12.345678")
        #expect(RolloutTemplate.format(percent: 0.000001) == "0.000001")
        #expect(RolloutTemplate.isValid(percent: 0.000001))
        #expect(!RolloutTemplate.isValid(percent: 0.0000001))
        #expect(!RolloutTemplate.isValid(percent: 0))
        #expect(!RolloutTemplate.isValid(percent: 100.5))
        #expect(!RolloutTemplate.isValid(percent: .nan))
    }

    @Test func aStepPutsItsConditionFirstAndTheValueInTheParametersGroup() throws {
        let stepped = try #require(Self.rollout.applying(percent: 10, to: Self.base))
        #expect(stepped.conditions.map(\.name) == ["rollout_7", "ios"])
        let expression = stepped.conditions[0].expression
        #expect(expression == "(device.os == 'ios' || app.id == 'x') && percent('rollout_7') <= 10")
        _ = try ConditionParser.parse(expression)
        let parameter = stepped.parameterGroups["checkout"]?.parameters["new_checkout"]
        #expect(parameter?.conditionalValues["rollout_7"] == .value("true"))
        #expect(parameter?.defaultValue == .value("false"))
        #expect(stepped.parameters == Self.base.parameters, "nothing else changes")
        // The next step replaces the condition rather than adding one.
        let next = try #require(Self.rollout.applying(percent: 50, to: stepped))
        #expect(next.conditions.map(\.name) == ["rollout_7", "ios"])
        #expect(next.conditions[0].expression.hasSuffix("<= 50"))
        #expect(Self.rollout.removing(from: next) == Self.base, "a halt gives back what there was")
        #expect(Self.rollout.applying(percent: 10, to: RemoteConfigTemplate()) == nil, "no such parameter")
    }

    @Test func completingMakesTheValueTheDefault() throws {
        let stepped = try #require(Self.rollout.applying(percent: 10, to: Self.base))
        let done = try #require(Self.rollout.completing(stepped))
        let parameter = done.parameterGroups["checkout"]?.parameters["new_checkout"]
        #expect(parameter?.defaultValue == .value("true"))
        #expect(parameter?.conditionalValues.isEmpty == true)
        #expect(done.conditions.map(\.name) == ["ios"])
    }

    @Test func onlyChangesToItsParameterOrConditionAreEdits() throws {
        let stepped = try #require(Self.rollout.applying(percent: 10, to: Self.base))
        var other = stepped
        other.parameters["banner"] = Parameter(defaultValue: .value("sale"))
        other.conditions.append(Condition(name: "android", expression: "device.os == 'android'"))
        #expect(!Self.rollout.isEdited(from: stepped, to: other))
        var description = stepped
        description.parameterGroups["checkout"]?.parameters["new_checkout"]?.description = "note"
        #expect(Self.rollout.isEdited(from: stepped, to: description))
        var condition = stepped
        condition.conditions[0].expression = "percent('rollout_7') <= 90"
        #expect(Self.rollout.isEdited(from: stepped, to: condition))
        #expect(Self.rollout.isEdited(from: stepped, to: Self.base), "the condition and value removed")
    }
}
