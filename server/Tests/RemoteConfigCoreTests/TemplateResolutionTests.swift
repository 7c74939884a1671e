import Foundation
import Testing

@testable import RemoteConfigCore

@Suite("Template resolution")
struct TemplateResolutionTests {
    static func compile(_ json: String) throws -> CompiledTemplate {
        try CompiledTemplate(RemoteConfigTemplate(json: Array(json.utf8)))
    }

    @Test("force update: iOS below 2.0.0 and the one broken release")
    func forceUpdate() throws {
        let template = try Self.compile(
            #"""
            {"conditions": [
                {"name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])"},
                {"name": "broken_release", "expression": "app.version.==(['1.1.4'])"}
             ],
             "parameters": {
                "require_force_update": {"defaultValue": {"value": "false"},
                    "conditionalValues": {"ios_too_old": {"value": "true"}, "broken_release": {"value": "true"}},
                    "valueType": "BOOLEAN"}
             },
             "version": {"versionNumber": "7"}}
            """#
        )
        func force(_ platform: Platform?, _ version: String?) -> String? {
            template.resolve(FetchContext(appInstanceId: "i", platform: platform, appVersion: version)).values[
                "require_force_update"
            ]
        }
        #expect(force(.ios, "1.9.9") == "true")
        #expect(force(.ios, "2.0.0") == "false")
        #expect(force(.android, "1.9.9") == "false")
        #expect(force(.android, "1.1.4") == "true")
        #expect(force(.ios, "1.1.4") == "true")
        #expect(force(nil, "1.1.4") == "true")
        #expect(force(nil, "1.9.9") == "false")  // unknown platform: the default
        #expect(force(nil, nil) == "false")
        #expect(template.resolve(FetchContext()).templateVersion == "7")
    }

    @Test("the template's condition order wins, not the conditionalValues order")
    func conditionOrderWins() throws {
        let template = try Self.compile(
            #"""
            {"conditions": [
                {"name": "first", "expression": "app.customSignal['a'] == 1"},
                {"name": "second", "expression": "app.customSignal['b'] == 1"}
             ],
             "parameters": {
                "p": {"defaultValue": {"value": "default"},
                      "conditionalValues": {"second": {"value": "from second"}, "first": {"value": "from first"}}}
             }}
            """#
        )
        #expect(template.resolve(FetchContext(customSignals: ["a": 1, "b": 1])).values["p"] == "from first")
        #expect(template.resolve(FetchContext(customSignals: ["b": 1])).values["p"] == "from second")
        #expect(template.resolve(FetchContext(customSignals: ["a": 0, "b": 0])).values["p"] == "default")
    }

    @Test("useInAppDefault omits the key, by default or by condition")
    func omission() throws {
        let template = try Self.compile(
            #"""
            {"conditions": [{"name": "beta", "expression": "app.customSignal['beta'] == 'yes'"}],
             "parameters": {
                "a": {"defaultValue": {"useInAppDefault": true}, "conditionalValues": {"beta": {"value": "beta a"}}},
                "b": {"defaultValue": {"value": "b"}, "conditionalValues": {"beta": {"useInAppDefault": true}}},
                "c": {"conditionalValues": {"beta": {"value": "beta c"}}},
                "d": {"defaultValue": {"rolloutValue": {"rolloutId": "r", "value": "x", "percent": 5}}},
                "e": {"defaultValue": {"value": "e"},
                      "conditionalValues": {"beta": {"personalizationValue": {"personalizationId": "p"}}}}
             }}
            """#
        )
        let regular = template.resolve(FetchContext())
        #expect(regular.entries == [ResolvedEntry(key: "b", value: "b"), ResolvedEntry(key: "e", value: "e")])
        #expect(regular.state == .update)
        let beta = template.resolve(FetchContext(customSignals: ["beta": "yes"]))
        #expect(
            beta.entries == [
                ResolvedEntry(key: "a", value: "beta a"), ResolvedEntry(key: "c", value: "beta c"),
                ResolvedEntry(key: "e", value: "e"),
            ]
        )
    }

    @Test("parameters in groups are served like top-level ones, after them")
    func groups() throws {
        let template = try Self.compile(
            #"""
            {"conditions": [{"name": "jp", "expression": "device.country in ['jp']"}],
             "parameters": {"top": {"defaultValue": {"value": "1"}}},
             "parameterGroups": {
                "g1": {"description": "d", "parameters": {
                    "in_group": {"defaultValue": {"value": "2"}, "conditionalValues": {"jp": {"value": "2jp"}}}}},
                "g2": {"parameters": {"other": {"defaultValue": {"useInAppDefault": true}},
                                      "last": {"defaultValue": {"value": "3"}}}}
             }}
            """#
        )
        let result = template.resolve(FetchContext(countryCode: "JP"))
        #expect(result.entries.map(\.key) == ["top", "in_group", "last"])
        #expect(result.values == ["top": "1", "in_group": "2jp", "last": "3"])
        #expect(template.resolve(FetchContext()).values["in_group"] == "2")
    }

    @Test("states: EMPTY_CONFIG when nothing applies")
    func states() throws {
        let template = try Self.compile(#"{"parameters": {"a": {"defaultValue": {"useInAppDefault": true}}}}"#)
        #expect(template.resolve(FetchContext()).state == .emptyConfig)
        #expect(
            try Self.compile("{}").resolve(FetchContext())
                == FetchResult(
                    state: .emptyConfig,
                    entries: [],
                    templateVersion: nil
                ))
        #expect(FetchResult.noTemplate.state.rawValue == "NO_TEMPLATE")
    }

    @Test("a condition that fails to compile is reported with its name and position")
    func compileError() throws {
        do {
            _ = try Self.compile(
                #"{"conditions": [{"name": "ok", "expression": "true"}, {"name": "bad", "expression": "device.os =="}]}"#
            )
            Issue.record("compiled")
        } catch let error as ConditionCompileError {
            #expect(error.index == 1)
            #expect(error.name == "bad")
            #expect(error.error.position == 12)
            #expect(
                error.description
                    == "condition \"bad\": expected a quoted platform ('ios', 'android' or 'web') but found the end of the expression at 12"
            )
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("conditional values naming no condition are ignored; evaluation is lazy and cached")
    func unknownReference() throws {
        let template = try Self.compile(
            #"""
            {"conditions": [{"name": "pct", "expression": "percent('s') <= 100"}, {"name": "pct2", "expression": "percent('s') > 0"}],
             "parameters": {"p": {"defaultValue": {"value": "d"}, "conditionalValues": {"ghost": {"value": "g"}}},
                            "q": {"defaultValue": {"value": "d"}, "conditionalValues": {"pct2": {"value": "two"}, "pct": {"value": "one"}}}}}
            """#
        )
        let result = template.resolve(FetchContext(appInstanceId: "x"))
        #expect(result.values == ["p": "d", "q": "one"])
        let truths = template.evaluateConditions(FetchContext(appInstanceId: "x"))
        #expect(truths.map(\.name) == ["pct", "pct2"])
        #expect(truths.map(\.truth) == [.true, .true])
    }

    @Test("inputs: what the used conditions read, for fetch ETags")
    func inputs() throws {
        let template = try Self.compile(
            #"""
            {"conditions": [
                {"name": "a", "expression": "device.os == 'ios' && app.customSignal['plan'] == 'pro'"},
                {"name": "b", "expression": "dateTime >= dateTime('2026-12-01T00:00:00') && percent <= 5"},
                {"name": "unused", "expression": "device.country in ['jp']"}
             ],
             "parameters": {"p": {"defaultValue": {"value": "d"}, "conditionalValues": {"a": {"value": "1"}, "b": {"value": "2"}}}}}
            """#
        )
        let inputs = template.inputs
        #expect(inputs.fields == [.platform, .now, .appInstanceId])
        #expect(inputs.customSignalKeys == ["plan"])
        #expect(inputs.userPropertyKeys.isEmpty)
        #expect(inputs.timeBoundaries == [Date(timeIntervalSince1970: 1_796_083_200)])
    }
}
