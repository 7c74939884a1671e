import RemoteConfigCore
import Testing

/// The rule on rollouts' conditions, on templates alone: a live rollout's condition is its parameter's only, a
/// proposed one's is nobody's yet, an ended one's is dropped everywhere, other names are ordinary conditions,
/// and what the published template already has may stay.
@Suite struct RolloutConditionsTests {
    static let rollout = RolloutTemplate(
        parameter: "new_checkout", value: "true", audience: nil, conditionName: "rollout_7")

    /// `RolloutTemplateTests.base` at the rollout's 10% step, with `banner` given a value for `name`.
    static func stepped(bannerValueFor name: String? = nil) throws -> RemoteConfigTemplate {
        var template = try #require(rollout.applying(percent: 10, to: RolloutTemplateTests.base))
        if let name { template.parameters["banner"]?.conditionalValues[name] = .value("hidden") }
        return template
    }

    @Test func onlyTheRolloutsParameterMayHaveAValueForALiveRolloutsCondition() throws {
        let live = RolloutConditions(live: ["rollout_7": "new_checkout"])
        #expect(live.check(try Self.stepped(), over: nil).issues.isEmpty)
        let planted = live.check(try Self.stepped(bannerValueFor: "rollout_7"), over: nil)
        #expect(planted.issues.map(\.field) == ["parameters.banner.conditionalValues.rollout_7"])
        #expect(planted.issues.map(\.reason) == ["RESERVED_CONDITION_REFERENCE"])
        // Kept from before the rule: what is published already may be published again.
        let before = try Self.stepped(bannerValueFor: "rollout_7")
        #expect(live.check(before, over: before).issues.isEmpty)
    }

    @Test func aProposedRolloutsConditionIsNobodysYet() throws {
        let proposed = RolloutConditions(proposed: ["rollout_7": "new_checkout"])
        let outcome = proposed.check(try Self.stepped(bannerValueFor: "rollout_7"), over: RolloutTemplateTests.base)
        #expect(outcome.issues.map(\.field) == ["conditions[0].name"], "one problem: the condition")
        #expect(outcome.issues.map(\.reason) == ["RESERVED_CONDITION_NAME"])
    }

    @Test func anEndedRolloutsConditionIsDroppedWithEveryValueForIt() throws {
        let ended = RolloutConditions(ended: ["rollout_7"])
        let outcome = ended.check(try Self.stepped(bannerValueFor: "rollout_7"), over: nil)
        #expect(outcome.issues.isEmpty)
        #expect(outcome.dropped == ["rollout_7"])
        #expect(outcome.template == RolloutTemplateTests.base)
        #expect(Self.rollout.removing(from: try Self.stepped(bannerValueFor: "rollout_7")) == RolloutTemplateTests.base)
    }

    @Test func aNameNoRolloutOfTheProjectHasIsAnOrdinaryCondition() throws {
        let template = try Self.stepped(bannerValueFor: "rollout_7")
        let outcome = RolloutConditions().check(template, over: nil)
        #expect(outcome.issues.isEmpty && outcome.dropped.isEmpty && outcome.template == template)
        #expect(RolloutConditions.names(in: template) == ["rollout_7"])
        #expect(RolloutConditions.id(of: "rollout_12") == 12)
        #expect(RolloutConditions.id(of: "rollout_012") == nil && RolloutConditions.id(of: "rollout_x") == nil)
    }

    @Test func problemsOfTheGeneratedTemplateAreToldAsTheRolloutsInputs() {
        let issues = [
            ValidationIssue(
                field: "parameterGroups.checkout.parameters.new_checkout.conditionalValues.rollout_7.value",
                reason: "INVALID_CHARACTER", message: "the value contains U+0001"),
            ValidationIssue(
                field: "parameters", reason: "LIMIT_EXCEEDED", message: "the values have 1000001 characters"),
            ValidationIssue(
                field: "conditions[0].expression", reason: "LIMIT_EXCEEDED", message: "rollout_7: too many"),
            ValidationIssue(field: "conditions", reason: "LIMIT_EXCEEDED", message: "2001 conditions"),
        ]
        let told = Self.rollout.attributing(issues)
        #expect(told.map(\.field) == ["value", "value", "audience", "conditions"])
        #expect(told.allSatisfy { !$0.message.contains("rollout_7") })
    }
}
