import Foundation
import RemoteConfigTestHistories
import Testing

@testable import RemoteConfigCore

/// Seeded fuzzing of the whole pure template pipeline: JSON parse, template decode, validation,
/// compilation, resolution and re-encoding. Inputs start from valid templates and are mutated
/// byte by byte and structurally, so that every stage sees both near-misses and accepted input.
/// The pipeline and its reference oracle are in TemplateFuzzPipeline.swift; the input mutators in
/// TemplateFuzzMutators.swift.
@Suite("Template decoder fuzz")
struct TemplateFuzzTests {
    /// Every feature of the format at once: all atom kinds, every value type, other value kinds,
    /// groups, unknown members at every level, escapes and non-ASCII text.
    static let richTemplate = #"""
        {
          "conditions": [
            {"name": "ios_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])", "tagColor": "ORANGE"},
            {"name": "jp_or_gb", "expression": "device.country in ['jp', 'gb'] || device.language in ['en-GB']",
             "tagColor": "BLUE"},
            {"name": "half", "expression": "percent('rollout') between 0 and 50"},
            {"name": "pro", "expression": "app.customSignal['plan'].exactlyMatches(['pro']) && app.customSignal['cart'] >= 3"},
            {"name": "beta_build",
             "expression": "app.build.matches(['^9[0-9]+$']) || version(app.customSignal['sdk']) >= '1.2.0'"},
            {"name": "launch", "expression": "dateTime >= dateTime('2026-12-01T00:00:00', 'Asia/Tokyo')"},
            {"name": "new_users",
             "expression": "app.firstOpenTimestamp > ('2026-01-01T00:00:00') && !(app.id == 'com.example.lite')"},
            {"name": "testers", "expression": "app.instanceId in ['tester-1', 'tester-2'] || app.userProperty['level'] > 10",
             "futureField": {"x": [1, 2.50, -0, 1e3, true, null]}}
          ],
          "parameters": {
            "welcome": {"defaultValue": {"value": "Hello"},
                        "conditionalValues": {"jp_or_gb": {"value": "こんにちは \"quoted\" \\ \n\t\u007f \ud83d\ude00 é"},
                                              "pro": {"useInAppDefault": true}},
                        "description": "greeting"},
            "max_items": {"defaultValue": {"value": "10"}, "conditionalValues": {"pro": {"value": "1e3"}, "half": {"value": "-2.5"}},
                          "valueType": "NUMBER"},
            "layout": {"defaultValue": {"value": "{\"columns\": 2, \"rows\": [1, 2]}"},
                       "conditionalValues": {"beta_build": {"value": "[]"}}, "valueType": "JSON"},
            "force": {"defaultValue": {"value": "false"},
                      "conditionalValues": {"testers": {"value": "true"}, "ios_old": {"value": "true"}}, "valueType": "BOOLEAN"},
            "rollout": {"defaultValue": {"rolloutValue": {"rolloutId": "r1", "value": "x", "percent": 10}},
                        "conditionalValues": {"launch": {"personalizationValue": {"personalizationId": "p"}},
                                              "new_users": {"value": "fresh"}},
                        "valueType": "PARAMETER_VALUE_TYPE_UNSPECIFIED", "extraParam": null}
          },
          "parameterGroups": {
            "checkout": {"description": "Checkout flow", "owner": "payments",
                         "parameters": {"express_pay": {"defaultValue": {"value": "true"}, "valueType": "BOOLEAN",
                                                        "conditionalValues": {"half": {"value": "false"}}},
                                        "fee": {"defaultValue": {"useInAppDefault": true}, "valueType": "NUMBER"}}},
            "empty_group": {"parameters": {}}
          },
          "version": {"versionNumber": 12, "updateTime": "2026-11-22T10:00:00.000Z",
                      "updateUser": {"email": "ci@example.com", "imageUrl": "u"}, "updateOrigin": "REST_API",
                      "updateType": "INCREMENTAL_UPDATE", "rollbackSource": "5", "isLegacy": false},
          "etag": "etag-abc"
        }
        """#

    /// A template whose parameters all live in groups, with nulls where members are optional.
    static let groupsOnly = #"""
        {"conditions": [{"name": "android", "expression": "device.os == 'android'", "tagColor": null}],
         "parameters": null,
         "parameterGroups": {"g": {"description": null, "parameters": {
            "a": {"defaultValue": {"value": "1"}, "conditionalValues": {"android": {"value": "2"}}, "valueType": "NUMBER",
                  "description": null},
            "b": {"defaultValue": null, "conditionalValues": null, "valueType": null}}}},
         "version": {"versionNumber": "1", "updateUser": null}}
        """#

    static let seedTexts = [TemplateTests.firebaseExample, richTemplate, groupsOnly, "{}"]

    @Test("the seed templates are valid, so mutations start from accepted input")
    func seedsAreValid() throws {
        for text in Self.seedTexts {
            let template = try RemoteConfigTemplate(json: Array(text.utf8))
            #expect(TemplateValidator.validate(template) == [], "\(text.prefix(80))")
            _ = try CompiledTemplate(template)
        }
    }

    @Test("5,000 mutated templates go through parse, decode, validate, compile, resolve and round trip")
    func fuzz() throws {
        let iterations = 5_000
        var random = SeededGenerator(seed: 0x7E47_F022)
        let seeds = try Self.seedTexts.map { text in
            let template = try RemoteConfigTemplate(json: Array(text.utf8))
            let value = try JSONValue(parsing: text)
            return FuzzSeed(text: Array(text.utf8), compact: value.jsonBytes(), value: value, template: template)
        }
        var pipeline = FuzzPipeline()
        for round in 0..<iterations {
            let seed = seeds.randomElement(using: &random)!
            let input: [UInt8]
            switch round % 4 {
            case 0:
                // Raw text (with its whitespace) or the compact encoding, mangled byte by byte.
                let base = Bool.random(using: &random) ? seed.text : seed.compact
                input = ByteMutator.mutate(base, &random)
            case 1:
                let value = StructureMutator.mutate(seed.value, &random)
                input = StructureMutator.serialize(value, &random)
            case 2:
                let template = ModelMutator.mutate(seed.template, &random)
                input = StructureMutator.serialize(template.jsonValue, &random)
            default:
                // Both kinds stacked: a plausible template with a few damaged bytes.
                let template = ModelMutator.mutate(seed.template, &random)
                let value = StructureMutator.mutate(template.jsonValue, &random)
                if Int.random(in: 0..<3, using: &random) == 0 {
                    input = ByteMutator.mutate(value.jsonBytes(), &random)
                } else {
                    input = StructureMutator.serialize(value, &random)
                }
            }
            pipeline.run(input, round: round, seed: seed.template, random: &random)
        }
        let counts = pipeline.counts
        #expect(counts.values.reduce(0, +) == iterations)
        // Each stage must see plenty of input, or the fuzzer is not exercising it.
        #expect(counts[.malformedJSON, default: 0] > iterations / 10, "\(counts)")
        #expect(counts[.notATemplate, default: 0] > iterations / 50, "\(counts)")
        #expect(counts[.invalid, default: 0] > iterations / 10, "\(counts)")
        #expect(counts[.accepted, default: 0] > iterations / 10, "\(counts)")
        #expect(pipeline.resolutions > iterations / 2, "\(pipeline.resolutions)")
        #expect(pipeline.failures == 0, "\(pipeline.failures) invariant violations; the first are recorded above")
    }

    @Test("the NUMBER check accepts exactly what the regex it replaced accepted")
    func finiteDecimalKeepsItsGrammar() {
        // Found while fuzzing: the check matched a regex literal, which is compiled anew on every
        // call (~0.17 ms), so validating a template of 30,000 NUMBER values took 5.9 s.
        func grammar(_ text: String) -> Bool {
            guard text.wholeMatch(of: /[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?/) != nil, let value = Double(text)
            else { return false }
            return value.isFinite
        }
        var samples = [
            "", "0", "-0", "+1", ".5", "5.", ".", "-.", "1e", "1e+", "1e400", "-1e-400", "1.5e3", "1E+2", "١", "0x10",
            "nan", "inf", "1_000", " 1", "1 ", "--1", "1e1.5", "..1", "1.2.3", "+.5e-3", "00012",
            "9" + String(repeating: "9", count: 400),
        ]
        var random = SeededGenerator(seed: 0xDEC1_3A1)
        let alphabet = Array("0123456789+-.eE x١")
        for _ in 0..<1_000 {
            let length = Int.random(in: 1...8, using: &random)
            samples.append(String((0..<length).map { _ in alphabet.randomElement(using: &random)! }))
        }
        for text in samples {
            #expect(TemplateValidator.isFiniteDecimal(text) == grammar(text), "\(text.debugDescription)")
        }
    }

    @Test("512 levels of nesting in an unknown member decode, validate and round-trip; 513 are an error")
    func deepUnknownMember() throws {
        func document(depth: Int) -> [UInt8] {
            // The template object itself is one level.
            let nested = String(repeating: "[", count: depth - 1) + String(repeating: "]", count: depth - 1)
            return Array(#"{"conditions": [], "futureField": \#(nested)}"#.utf8)
        }
        let template = try RemoteConfigTemplate(json: document(depth: JSONParser.maximumDepth))
        #expect(TemplateValidator.validate(template) == [])
        #expect(try RemoteConfigTemplate(json: template.jsonBytes()) == template)
        #expect(throws: TemplateDecodingError.self) { try RemoteConfigTemplate(json: document(depth: 513)) }
        #expect(throws: TemplateDecodingError.self) { try RemoteConfigTemplate(json: document(depth: 200_000)) }
    }
}

/// A starting point: the text as written, its JSON value and its decoded template.
private struct FuzzSeed {
    var text: [UInt8]
    var compact: [UInt8]
    var value: JSONValue
    var template: RemoteConfigTemplate
}
