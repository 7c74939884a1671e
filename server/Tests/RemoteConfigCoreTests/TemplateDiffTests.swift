import RemoteConfigCore
import Testing

@Suite struct TemplateDiffTests {
    func template(_ json: String) throws -> RemoteConfigTemplate {
        try RemoteConfigTemplate(json: Array(json.utf8))
    }

    @Test func reorderingConditionalValuesIsNoChange() throws {
        let conditions = #""conditions": [{"name": "a", "expression": "true"}, {"name": "b", "expression": "false"}]"#
        let before = try template(
            #"{\#(conditions), "parameters": {"p": {"conditionalValues": {"a": {"value": "1"}, "b": {"value": "2"}}}}}"#
        )
        let after = try template(
            #"{\#(conditions), "parameters": {"p": {"conditionalValues": {"b": {"value": "2"}, "a": {"value": "1"}}}}}"#
        )
        #expect(TemplateDiff(from: before, to: after).isEmpty)
    }

    @Test func changesNameTheirAspects() throws {
        let before = try template(
            #"{"conditions": [{"name": "a", "expression": "true"}, {"name": "b", "expression": "false"}], "parameters": {"p": {"defaultValue": {"value": "1"}}, "gone": {}}}"#
        )
        let after = try template(
            #"{"conditions": [{"name": "b", "expression": "false"}, {"name": "a", "expression": "!false"}], "parameters": {"p": {"defaultValue": {"value": "2"}, "valueType": "NUMBER"}, "new": {}}}"#
        )
        let diff = TemplateDiff(from: before, to: after)
        #expect(diff.parametersAdded.map(\.name) == ["new"])
        #expect(diff.parametersRemoved.map(\.name) == ["gone"])
        #expect(diff.parametersChanged.map(\.aspects) == [["defaultValue", "valueType"]])
        #expect(diff.conditionOrderChanged)
        #expect(diff.conditionsChanged.first { $0.name == "a" }?.aspects == ["expression", "position"])
    }
}

extension TemplateDiffTests {
    /// Found by the template fuzz test: with a repeated condition name, every later occurrence was
    /// compared with the first one, so a template differed from itself.
    @Test func aTemplateWithARepeatedConditionNameDoesNotDifferFromItself() throws {
        let repeated = try template(
            #"{"conditions": [{"name": "a", "expression": "true"}, {"name": "a", "expression": "false"}]}"#
        )
        #expect(TemplateDiff(from: repeated, to: repeated).isEmpty)
        let changed = try template(
            #"{"conditions": [{"name": "a", "expression": "!true"}, {"name": "a", "expression": "false"}]}"#
        )
        #expect(TemplateDiff(from: repeated, to: changed).conditionsChanged.map(\.aspects) == [["expression"]])
    }
}
