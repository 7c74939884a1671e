import RemoteConfigCore
import Testing

/// Example tests of how conditions travel with promoted values: statuses, conflicts and order.
@Suite struct PromotionConditionTests {
    func template(_ json: String) throws -> RemoteConfigTemplate {
        try RemoteConfigTemplate(json: Array(json.utf8))
    }

    func statuses(_ plan: PromotionPlan) -> [String] {
        plan.conditions.map { "\($0.name):\($0.status.rawValue)" }
    }

    @Test func everyConditionStatus() throws {
        let source = try template(
            #"""
            {"conditions": [{"name": "new", "expression": "device.os == 'web'", "tagColor": "BLUE"},
                            {"name": "same", "expression": "device.os == 'ios'", "tagColor": "GREEN"},
                            {"name": "moved", "expression": "percent <= 60"}],
             "parameters": {"p": {"conditionalValues": {"new": {"value": "w"}, "same": {"value": "i"}, "moved": {"value": "m"}}}}}
            """#)
        let target = try template(
            #"""
            {"conditions": [{"name": "same", "expression": "device.os == 'ios'"}, {"name": "moved", "expression": "percent <= 50"},
                            {"name": "country", "expression": "device.country in ['us']"},
                            {"name": "unused", "expression": "device.os == 'android'"}],
             "parameters": {"p": {"conditionalValues": {"unused": {"value": "a"}}},
                            "q": {"conditionalValues": {"country": {"value": "us"}}}}}
            """#)
        let plan = Promotion.plan(
            source: source, target: target, base: nil, request: PromotionRequest(parameters: ["p"]))
        #expect(statuses(plan) == ["new:CARRIED", "same:SAME", "moved:CARRIED", "country:KEPT", "unused:DROPPED"])
        #expect(plan.conditions[2].sourceExpression == "percent <= 60")
        #expect(plan.conditions[2].targetExpression == "percent <= 50")
        #expect(plan.conditions[0].targetExpression == nil)
        let result = try #require(plan.result)
        // Carried conditions are the source's whole definition, tag colour included.
        #expect(Array(result.conditions.prefix(3)) == source.conditions)
        #expect(result.conditions.map(\.name) == ["new", "same", "moved", "country"])
        #expect(result.parameters.keys == ["p", "q"])
        _ = try PreparedTemplate(result)
    }

    @Test func aCarriedExpressionAKeptParameterUsesIsAConflict() throws {
        let source = try template(
            #"{"conditions": [{"name": "few", "expression": "percent <= 15"}], "parameters": {"p": {"conditionalValues": {"few": {"value": "1"}}}}}"#
        )
        let target = try template(
            #"{"conditions": [{"name": "few", "expression": "percent <= 10"}], "parameters": {"q": {"conditionalValues": {"few": {"value": "2"}}}}}"#
        )
        let request = PromotionRequest(parameters: ["p"])
        let plan = Promotion.plan(source: source, target: target, base: nil, request: request)
        #expect(plan.result == nil)
        #expect(plan.conflicts.map(\.key) == ["few"])
        #expect(plan.conflicts.map(\.reason) == [.condition])
        #expect(plan.conflicts[0].message.contains("\"q\""))
        #expect(statuses(plan) == ["few:CONFLICT"])

        let overwritten = Promotion.plan(
            source: source, target: target, base: nil,
            request: PromotionRequest(parameters: ["p"], overwriteTargetChanges: true))
        let result = try #require(overwritten.result)
        #expect(result.conditions == source.conditions)
        #expect(result.parameters.keys == ["q", "p"])
        #expect(statuses(overwritten) == ["few:CARRIED"])
    }

    @Test func carriedConditionsComeFirstInTheSourcesOrder() throws {
        let source = try template(
            #"""
            {"conditions": [{"name": "b", "expression": "device.os == 'ios'"}, {"name": "a", "expression": "device.os == 'android'"}],
             "parameters": {"p": {"conditionalValues": {"a": {"value": "1"}, "b": {"value": "2"}}}}}
            """#)
        let target = try template(
            #"""
            {"conditions": [{"name": "x", "expression": "percent <= 10"}, {"name": "a", "expression": "device.os == 'android'"},
                            {"name": "y", "expression": "percent <= 20"}],
             "parameters": {"q": {"conditionalValues": {"x": {"value": "1"}}}, "r": {"conditionalValues": {"y": {"value": "1"}}}}}
            """#)
        let plan = Promotion.plan(
            source: source, target: target, base: nil, request: PromotionRequest(parameters: ["p"]))
        #expect(plan.result?.conditions.map(\.name) == ["b", "a", "x", "y"])
        #expect(statuses(plan) == ["b:CARRIED", "a:SAME", "x:KEPT", "y:KEPT"])
    }

    @Test func aTargetConditionAKeptParameterTriesFirstMovesUpWithIt() throws {
        let source = try template(
            #"{"conditions": [{"name": "a", "expression": "device.os == 'ios'"}], "parameters": {"p": {"conditionalValues": {"a": {"value": "1"}}}}}"#
        )
        let target = try template(
            #"""
            {"conditions": [{"name": "z", "expression": "device.os == 'web'"}, {"name": "x", "expression": "percent <= 10"},
                            {"name": "a", "expression": "device.os == 'ios'"}],
             "parameters": {"q": {"conditionalValues": {"a": {"value": "1"}, "x": {"value": "2"}}},
                            "r": {"conditionalValues": {"z": {"value": "3"}}}}}
            """#)
        let plan = Promotion.plan(
            source: source, target: target, base: nil, request: PromotionRequest(parameters: ["p"]))
        // Only "x" moves: "q" tries it before "a", and "z" stays after the carried conditions.
        #expect(plan.result?.conditions.map(\.name) == ["x", "a", "z"])
        #expect(statuses(plan) == ["x:KEPT", "a:SAME", "z:KEPT"])
    }

    @Test func sourceAndKeptOrdersThatContradictAreAConflict() throws {
        let definitions = (
            a: #"{"name": "a", "expression": "percent <= 10"}"#, b: #"{"name": "b", "expression": "percent <= 20"}"#
        )
        let both = #"{"conditionalValues": {"a": {"value": "1"}, "b": {"value": "2"}}}"#
        let source = try template(
            #"{"conditions": [\#(definitions.a), \#(definitions.b)], "parameters": {"p": \#(both)}}"#)
        let target = try template(
            #"{"conditions": [\#(definitions.b), \#(definitions.a)], "parameters": {"q": \#(both)}}"#)
        let plan = Promotion.plan(
            source: source, target: target, base: nil, request: PromotionRequest(parameters: ["p"]))
        #expect(plan.result == nil)
        #expect(plan.conflicts.map(\.key) == ["a"])
        #expect(plan.conflicts.first?.reason == .condition)
        #expect(statuses(plan) == ["a:CONFLICT", "b:SAME"])
        let overwritten = Promotion.plan(
            source: source, target: target, base: nil,
            request: PromotionRequest(parameters: ["p"], overwriteTargetChanges: true))
        #expect(overwritten.result?.conditions.map(\.name) == ["a", "b"])
    }

    @Test func aConditionTheSourceDoesNotDefineIsAConflictNothingOverrides() throws {
        let source = RemoteConfigTemplate(
            parameters: ["p": Parameter(conditionalValues: ["ghost": .value("1")])])
        let plan = Promotion.plan(
            source: source, target: RemoteConfigTemplate(), base: nil,
            request: PromotionRequest(overwriteTargetChanges: true))
        #expect(plan.result == nil)
        #expect(plan.conflicts.map(\.key) == ["ghost"])
        #expect(statuses(plan) == ["ghost:CONFLICT"])
    }

    @Test func parameterConflictsComeFirstThenConditionConflicts() throws {
        let base = try template(
            #"{"conditions": [{"name": "c", "expression": "percent <= 10"}], "parameters": {"a": {}, "q": {"conditionalValues": {"c": {"value": "1"}}}}}"#
        )
        var source = base
        source.conditions[0].expression = "percent <= 30"
        source.parameters["a"] = Parameter(description: "source")
        source.parameters["q"] = nil
        source.parameters["p"] = Parameter(conditionalValues: ["c": .value("2")])
        var target = base
        target.parameters["a"] = Parameter(description: "target")
        target.parameters["q"] = Parameter(conditionalValues: ["c": .value("hotfix")])
        let plan = Promotion.plan(source: source, target: target, base: base, request: PromotionRequest())
        #expect(plan.parameters.map(\.status) == [.bothChanged, .sourceChanged, .bothChanged])
        #expect(plan.conflicts.map(\.key) == ["a", "q", "c"])
        #expect(plan.conflicts.map(\.reason) == [.parameter, .parameter, .condition])
        #expect(plan.result == nil)
    }
}
