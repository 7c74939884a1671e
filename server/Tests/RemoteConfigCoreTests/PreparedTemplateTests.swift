import Testing

@testable import RemoteConfigCore

/// One pass from JSON to what a publish needs: the template, compiled once, and the JSON to store.
@Suite struct PreparedTemplateTests {
    static let json = """
        {"conditions": [{"name": "ios", "expression": "device.os == 'ios' && percent <= 50"}],
         "parameters": {"p": {"defaultValue": {"value": "a"}, "conditionalValues": {"ios": {"value": "b"}}}},
         "version": {"description": "first"}}
        """

    @Test func preparesWhatAFreshCompileWouldServe() throws {
        let prepared = try PreparedTemplate.prepare(json: Array(Self.json.utf8))
        let fresh = try CompiledTemplate(RemoteConfigTemplate(json: Array(Self.json.utf8)))
        for id in (0..<50).map({ "install-\($0)" }) {
            for platform in [Platform.ios, .android] {
                let context = FetchContext(appInstanceId: id, platform: platform)
                #expect(prepared.compiled.resolve(context) == fresh.resolve(context))
            }
        }
        #expect(!prepared.storedJSON.contains("version"))
        #expect(prepared.template.version?.description == "first")
        #expect(prepared.compiled.versioned(7).versionNumber == "7")
    }

    @Test func reportsEveryProblemAndTheCallersOwn() {
        let bad = #"{"conditions": [{"name": "a", "expression": "nonsense"}, {"name": "a", "expression": "true"}]}"#
        let failure = #expect(throws: PreparedTemplate.Failure.self) {
            _ = try PreparedTemplate.prepare(
                json: Array(bad.utf8),
                extraIssues: { _ in [ValidationIssue(field: "x", reason: "MINE", message: "the caller's rule")] })
        }
        guard case .invalid(let issues)? = failure else {
            Issue.record("expected .invalid, got \(String(describing: failure))")
            return
        }
        #expect(issues.map(\.reason) == ["INVALID_EXPRESSION", "DUPLICATE_CONDITION", "MINE"])
        #expect(throws: PreparedTemplate.Failure.self) { _ = try PreparedTemplate.prepare(json: Array("{".utf8)) }
    }
}
