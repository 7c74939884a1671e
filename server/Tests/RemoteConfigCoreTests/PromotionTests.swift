import RemoteConfigCore
import Testing

/// Example tests of the promotion merge: one per status, condition status and rule.
@Suite struct PromotionTests {
    func template(_ json: String) throws -> RemoteConfigTemplate {
        try RemoteConfigTemplate(json: Array(json.utf8))
    }

    func value(_ text: String) -> Parameter {
        Parameter(defaultValue: .value(text))
    }

    func plan(
        _ source: RemoteConfigTemplate, _ target: RemoteConfigTemplate, base: RemoteConfigTemplate?,
        _ request: PromotionRequest = PromotionRequest()
    ) -> PromotionPlan {
        Promotion.plan(source: source, target: target, base: base, request: request)
    }

    func status(_ plan: PromotionPlan, _ key: String) -> PromotionStatus? {
        plan.parameters.first { $0.key == key }?.status
    }

    @Test func equalParametersAreUnchangedAndTheResultIsTheTarget() throws {
        var target = RemoteConfigTemplate(parameters: ["a": value("1")], extra: ["etag": .string("x")])
        target.version = TemplateVersion(versionNumber: "7")
        let source = RemoteConfigTemplate(parameters: ["a": value("1")])
        let result = plan(source, target, base: source)
        #expect(result.parameters.map(\.status) == [.unchanged])
        #expect(result.parameters.map(\.promoted) == [false])
        var expected = target
        expected.version = nil
        #expect(result.result == expected)
    }

    @Test func aChangeOnlyTheSourceMadeIsPromoted() throws {
        let base = RemoteConfigTemplate(parameters: ["a": value("1"), "b": value("1")])
        let source = RemoteConfigTemplate(parameters: ["a": value("2"), "b": value("1")])
        let result = plan(source, base, base: base)
        #expect(result.parameters.map(\.status) == [.sourceChanged, .unchanged])
        #expect(result.parameters[0].source == value("2") && result.parameters[0].target == value("1"))
        #expect(result.parameters[0].base == value("1"))
        #expect(result.result?.parameters["a"] == value("2"))
        #expect(result.conflicts.isEmpty)
    }

    @Test func aHotfixInTheTargetIsKeptUnlessNamedOrOverwritten() throws {
        let base = RemoteConfigTemplate(parameters: ["a": value("1")])
        let target = RemoteConfigTemplate(parameters: ["a": value("hotfix")])
        let kept = plan(base, target, base: base)
        #expect(status(kept, "a") == .targetChanged)
        #expect(kept.parameters[0].promoted == false)
        #expect(kept.result?.parameters["a"] == value("hotfix"))
        let named = plan(base, target, base: base, PromotionRequest(parameters: ["a"]))
        #expect(named.parameters[0].promoted && named.result?.parameters["a"] == value("1"))
        let overwritten = plan(base, target, base: base, PromotionRequest(overwriteTargetChanges: true))
        #expect(overwritten.result?.parameters["a"] == value("1"))
    }

    @Test func changesOnBothSidesConflictUnlessNamedOrOverwritten() throws {
        let base = RemoteConfigTemplate(parameters: ["a": value("1"), "b": value("1")])
        let source = RemoteConfigTemplate(parameters: ["a": value("2"), "b": value("2")])
        let target = RemoteConfigTemplate(parameters: ["a": value("3"), "b": value("3")])
        let conflicted = plan(source, target, base: base)
        #expect(conflicted.parameters.map(\.status) == [.bothChanged, .bothChanged])
        #expect(conflicted.conflicts.map(\.key) == ["a", "b"])
        #expect(conflicted.conflicts.allSatisfy { $0.reason == .parameter })
        #expect(conflicted.result == nil)
        let named = plan(source, target, base: base, PromotionRequest(parameters: ["a", "b"]))
        #expect(named.conflicts.isEmpty && named.result?.parameters["b"] == value("2"))
        let overwritten = plan(source, target, base: base, PromotionRequest(overwriteTargetChanges: true))
        #expect(overwritten.result?.parameters["a"] == value("2"))
        let one = plan(source, target, base: base, PromotionRequest(parameters: ["a"]))
        #expect(one.parameters.map(\.key) == ["a"] && one.result?.parameters["b"] == value("3"))
    }

    @Test func withoutABaseEveryDifferenceIsASourceChange() throws {
        let source = RemoteConfigTemplate(parameters: ["a": value("2"), "new": value("n")])
        let target = RemoteConfigTemplate(parameters: ["a": value("hotfix"), "gone": value("g")])
        let result = plan(source, target, base: nil)
        #expect(result.parameters.map(\.key) == ["a", "gone", "new"])
        #expect(result.parameters.allSatisfy { $0.status == .sourceChanged && $0.promoted })
        #expect(result.result?.parameters == ["a": value("2"), "new": value("n")])
    }

    @Test func localParametersAreNeitherSentNorChanged() throws {
        let source = RemoteConfigTemplate(parameters: ["url": value("staging"), "only_here": value("x")])
        let target = RemoteConfigTemplate(parameters: ["url": value("production")])
        let request = PromotionRequest(parameters: nil, localParameters: ["url", "only_here"])
        let result = plan(source, target, base: nil, request)
        #expect(result.parameters.map(\.status) == [.local, .local])
        #expect(result.result?.parameters == ["url": value("production")])
        let named = plan(source, target, base: nil, PromotionRequest(parameters: ["url"], localParameters: ["url"]))
        #expect(named.parameters.map(\.status) == [.local] && named.result?.parameters["url"] == value("production"))
    }

    @Test func aNamedKeyTheSourceLacksIsRemovedWhereverItIs() throws {
        let target = try template(
            #"{"parameters": {"keep": {}}, "parameterGroups": {"g": {"parameters": {"old": {}, "other": {}}}}}"#)
        let result = plan(RemoteConfigTemplate(), target, base: target, PromotionRequest(parameters: ["old"]))
        #expect(result.parameters.map(\.status) == [.sourceChanged])
        #expect(result.result?.parameterGroups["g"]?.parameters.keys == ["other"])
        #expect(result.result?.parameters.keys == ["keep"])
    }

    @Test func aPromotedParameterMovesToTheSourcesGroup() throws {
        let source = try template(
            #"{"parameterGroups": {"new_group": {"description": "from staging", "parameters": {"a": {"defaultValue": {"value": "2"}}}}, "old": {"parameters": {}}}}"#
        )
        let target = try template(
            #"{"parameters": {"a": {"defaultValue": {"value": "1"}}}, "parameterGroups": {"old": {"description": "prod", "parameters": {"b": {}}}, "emptied": {"parameters": {"c": {}}}}}"#
        )
        let result = try #require(plan(source, target, base: nil).result)
        #expect(result.parameters.isEmpty)
        #expect(result.parameterGroups.keys == ["old", "new_group"])
        #expect(result.parameterGroups["new_group"]?.description == "from staging")
        #expect(result.parameterGroups["new_group"]?.parameters["a"] == value("2"))
        // The source has "old": its description stays the target's; "b" the source lacks is removed.
        #expect(result.parameterGroups["old"]?.description == "prod")
        #expect(result.parameterGroups["old"]?.parameters.isEmpty == true)
    }

    @Test func equalityReadsConditionsByExpressionInPrecedenceOrder() throws {
        let renamed = try template(
            #"{"conditions": [{"name": "apple", "expression": "device.os == 'ios'"}], "parameters": {"a": {"conditionalValues": {"apple": {"value": "1"}}}}}"#
        )
        let original = try template(
            #"{"conditions": [{"name": "ios", "expression": "device.os == 'ios'"}], "parameters": {"a": {"conditionalValues": {"ios": {"value": "1"}}}}}"#
        )
        let redefined = try template(
            #"{"conditions": [{"name": "ios", "expression": "device.os == 'android'"}], "parameters": {"a": {"conditionalValues": {"ios": {"value": "1"}}}}}"#
        )
        #expect(Promotion.sameParameter(renamed.parameters["a"], in: renamed, original.parameters["a"], in: original))
        #expect(
            !Promotion.sameParameter(original.parameters["a"], in: original, redefined.parameters["a"], in: redefined))
        let both = #""parameters": {"a": {"conditionalValues": {"x": {"value": "1"}, "y": {"value": "2"}}}}"#
        let xFirst = try template(
            #"{"conditions": [{"name": "x", "expression": "percent <= 10"}, {"name": "y", "expression": "percent <= 20"}], \#(both)}"#
        )
        let yFirst = try template(
            #"{"conditions": [{"name": "y", "expression": "percent <= 20"}, {"name": "x", "expression": "percent <= 10"}], \#(both)}"#
        )
        #expect(!Promotion.sameParameter(xFirst.parameters["a"], in: xFirst, yFirst.parameters["a"], in: yFirst))
        #expect(Promotion.sameParameter(nil, in: xFirst, nil, in: yFirst))
        #expect(!Promotion.sameParameter(Parameter(description: "d"), in: xFirst, Parameter(), in: xFirst))
    }
}
