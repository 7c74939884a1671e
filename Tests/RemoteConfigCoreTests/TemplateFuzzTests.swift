import Foundation
import Testing

@testable import RemoteConfigCore

/// Seeded fuzzing of the whole pure template pipeline: JSON parse, template decode, validation,
/// compilation, resolution and re-encoding. Inputs start from valid templates and are mutated
/// byte by byte and structurally, so that every stage sees both near-misses and accepted input.
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
                        "conditionalValues": {"jp_or_gb": {"value": "こんにちは \"quoted\" \\ \n\t\u0001 \ud83d\ude00 é"},
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

/// Where an input stopped.
private enum FuzzOutcome: Hashable, CustomStringConvertible {
    case malformedJSON
    case notATemplate
    case invalid
    case accepted

    var description: String {
        switch self {
        case .malformedJSON: return "malformed"
        case .notATemplate: return "not a template"
        case .invalid: return "invalid"
        case .accepted: return "accepted"
        }
    }
}

/// Runs one input through every stage and checks the invariants that hold for any input.
private struct FuzzPipeline {
    var counts: [FuzzOutcome: Int] = [:]
    var failures = 0
    var resolutions = 0
    private var input: [UInt8] = []
    private var round = 0
    /// Whether this round also runs the checks that repeat work (re-parsing, pretty printing, diffs):
    /// a debug build is too slow to run them on every input.
    private var thorough: Bool { round % 8 == 0 }

    /// The reasons API.md names, plus those this implementation adds for malformed names, values and text.
    static let knownReasons: Set<String> = [
        "PARAM_VALUE_TYPE_MISMATCH", "UNKNOWN_CONDITION_REFERENCE", "DUPLICATE_KEY", "DUPLICATE_CONDITION",
        "INVALID_EXPRESSION", "INVALID_KEY", "LIMIT_EXCEEDED", "INVALID_IN_APP_DEFAULT_VALUE",
        "INVALID_CONDITION_NAME", "INVALID_VALUE", "INVALID_CHARACTER",
    ]

    /// Records a violated invariant with the input that broke it, without flooding the log.
    mutating func check(
        _ condition: Bool,
        _ message: @autoclosure () -> String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard !condition else { return }
        failures += 1
        guard failures <= 10 else { return }
        let text = String(decoding: input.prefix(600), as: UTF8.self).debugDescription
        Issue.record(
            "round \(round): \(message())\ninput (\(input.count) bytes): \(text)", sourceLocation: sourceLocation)
    }

    mutating func run(_ bytes: [UInt8], round: Int, seed: RemoteConfigTemplate, random: inout SeededGenerator) {
        input = bytes
        self.round = round
        let outcome = stages(bytes, seed: seed, random: &random)
        counts[outcome, default: 0] += 1
    }

    private mutating func stages(
        _ bytes: [UInt8],
        seed: RemoteConfigTemplate,
        random: inout SeededGenerator
    ) -> FuzzOutcome {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            check(error.offset >= 0 && error.offset <= bytes.count, "parse error offset \(error.offset) out of range")
            check(!error.message.isEmpty, "parse error without a message")
            do {
                let template = try RemoteConfigTemplate(json: bytes)
                check(false, "the template decoder accepted malformed JSON as \(template)")
            } catch {
                check(error.byteOffset != nil && !error.message.isEmpty, "malformed JSON reported as \(error)")
            }
            return .malformedJSON
        }
        if thorough { checkJSONRoundTrip(value) }

        let template: RemoteConfigTemplate
        do {
            template = try RemoteConfigTemplate(jsonValue: value)
        } catch {
            check(error.byteOffset == nil, "a shape error with a byte offset: \(error)")
            check(!error.message.isEmpty, "a shape error without a message")
            check(value.objectValue == nil || !error.field.isEmpty, "a shape error in an object names no field")
            guard thorough else { return .notATemplate }
            do {
                _ = try RemoteConfigTemplate(json: bytes)
                check(false, "bytes decoded although the parsed value did not")
            } catch let again {
                check(again == error, "bytes and value decoding disagree: \(again) vs \(error)")
            }
            return .notATemplate
        }
        if thorough {
            do {
                let fromBytes = try RemoteConfigTemplate(json: bytes)
                check(fromBytes == template, "bytes and value decoding disagree")
            } catch {
                check(false, "bytes did not decode although the parsed value did: \(error)")
            }
        }
        checkTemplateRoundTrip(template)

        let issues = TemplateValidator.validate(template)
        for issue in issues {
            check(Self.knownReasons.contains(issue.reason), "unknown reason \(issue.reason)")
            check(!issue.field.isEmpty && !issue.message.isEmpty, "issue without field or message: \(issue)")
        }
        checkCompilation(template, issues: issues, random: &random)
        if thorough {
            // The diff must cope with anything decodable, duplicates included.
            _ = TemplateDiff(from: seed, to: template)
            _ = TemplateDiff(from: template, to: seed)
        }
        return issues.isEmpty ? .accepted : .invalid
    }

    /// The JSON writer and parser are inverse: same value, and the same bytes the second time.
    private mutating func checkJSONRoundTrip(_ value: JSONValue) {
        let compact = value.jsonBytes()
        do {
            let again = try JSONValue(parsing: compact)
            check(again == value, "JSON changed through the writer")
            check(again.jsonBytes() == compact, "JSON writer is not stable")
            // Indentation grows with depth, so pretty text of deep values is quadratic: skip those.
            if Self.depth(value) <= 32 {
                check(try JSONValue(parsing: value.prettyJSONBytes()) == value, "pretty JSON changed the value")
            }
        } catch {
            check(false, "the writer produced JSON the parser rejects: \(error)")
        }
    }

    /// How deeply a value nests; a scalar is 0.
    static func depth(_ value: JSONValue) -> Int {
        switch value {
        case .object(let object): return 1 + (object.members.map { depth($0.value) }.max() ?? 0)
        case .array(let elements): return 1 + (elements.map(depth).max() ?? 0)
        default: return 0
        }
    }

    /// A decoded template re-encodes to JSON that decodes to the same template (and, with the
    /// writer and parser inverse, to bytes that do); thorough rounds go through the bytes.
    private mutating func checkTemplateRoundTrip(_ template: RemoteConfigTemplate) {
        let value = template.jsonValue
        do {
            let again = try RemoteConfigTemplate(jsonValue: value)
            check(again == template, "the template changed through encode and decode")
            guard thorough else { return }
            let bytes = value.jsonBytes()
            let fromBytes = try RemoteConfigTemplate(json: bytes)
            check(fromBytes == template, "the template changed through its bytes")
            check(fromBytes.jsonBytes() == bytes, "the template's encoding is not stable")
            check(TemplateDiff(from: template, to: fromBytes).isEmpty, "a round trip shows a diff")
            if Self.depth(value) <= 32 {
                let pretty = try RemoteConfigTemplate(json: value.prettyJSONBytes())
                check(pretty == template, "the pretty encoding decodes differently")
            }
        } catch {
            check(false, "the encoded template does not decode: \(error)")
        }
    }

    /// Compilation fails exactly when validation reports an expression problem, at the same condition.
    private mutating func checkCompilation(
        _ template: RemoteConfigTemplate,
        issues: [ValidationIssue],
        random: inout SeededGenerator
    ) {
        let expressionIssues = issues.filter { $0.field.hasPrefix("conditions[") && $0.field.hasSuffix("].expression") }
        let compiled: CompiledTemplate
        do {
            compiled = try CompiledTemplate(template)
        } catch {
            check(error.index >= 0 && error.index < template.conditions.count, "compile error index \(error.index)")
            guard error.index >= 0 && error.index < template.conditions.count else { return }
            let condition = template.conditions[error.index]
            check(error.name == condition.name, "compile error names \(error.name)")
            check(
                error.error.position >= 0 && error.error.position <= condition.expression.count,
                "condition error position \(error.error.position) outside \(condition.expression.debugDescription)")
            check(!error.error.message.isEmpty, "condition error without a message")
            check(
                expressionIssues.first?.field == "conditions[\(error.index)].expression",
                "compile failed at \(error.index) but validation reported \(expressionIssues.map(\.field))")
            return
        }
        check(expressionIssues.isEmpty, "compiled although validation reported \(expressionIssues)")
        check(compiled.conditions.count == template.conditions.count, "conditions lost in compilation")
        // Compiling the re-decoded template serves the same answers.
        var again: CompiledTemplate?
        if thorough {
            again = (try? RemoteConfigTemplate(json: template.jsonBytes())).flatMap { try? CompiledTemplate($0) }
            check(again != nil, "the round-tripped template does not compile")
        }
        for _ in 0..<2 {
            let context = FuzzContexts.random(&random)
            let result = compiled.resolve(context)
            resolutions += 1
            check(result.state == (result.entries.isEmpty ? .emptyConfig : .update), "state \(result.state)")
            check(result.templateVersion == template.version?.versionNumber, "template version")
            let truths = compiled.evaluateConditions(context)
            check(truths.map(\.name) == template.conditions.map(\.name), "evaluateConditions names")
            let expected = Self.reference(template, truths: truths.map(\.truth))
            check(result.entries == expected, "resolved \(result.entries), expected \(expected)")
            if let again { check(again.resolve(context) == result, "the round-tripped template resolves differently") }
            // Fetch ETags are built from `inputs`: nothing outside them may change the answer.
            let varied = FuzzContexts.varying(context, outside: compiled.inputs, &random)
            check(compiled.resolve(varied) == result, "an input outside \(compiled.inputs) changed the answer")
        }
    }

    /// API.md's rule, written plainly: the first true condition (in template order) for which the
    /// parameter has a served value wins, else the default; `useInAppDefault` and other value kinds
    /// send nothing; a key repeated in a group is served once, from its first occurrence.
    static func reference(_ template: RemoteConfigTemplate, truths: [ConditionTruth]) -> [ResolvedEntry] {
        var firstIndex: [String: Int] = [:]
        for (index, condition) in template.conditions.enumerated() where firstIndex[condition.name] == nil {
            firstIndex[condition.name] = index
        }
        var entries: [ResolvedEntry] = []
        var served = Set<String>()
        for (key, parameter, _) in template.allParameters where served.insert(key).inserted {
            var winner: (index: Int, value: ParameterValue)?
            for (name, value) in parameter.conditionalValues {
                guard let index = firstIndex[name], truths[index] == .true else { continue }
                if case .other = value { continue }
                if winner == nil || index < winner!.index { winner = (index, value) }
            }
            if case .value(let text)? = winner?.value ?? parameter.defaultValue {
                entries.append(ResolvedEntry(key: key, value: text))
            }
        }
        return entries
    }
}

/// Fetch contexts that hit the seed templates' conditions often, and miss them often.
private enum FuzzContexts {
    static let signalKeys = ["plan", "cart", "sdk", "level", "tier", "k", "a", "b", "beta"]
    static let signalValues: [SignalValue] = [
        "pro", "free", "", "1.2.0", "1.10", "x.y", "😀", 3, 2.5, -0.0, 10, 11, 1e300, .number(.infinity),
        .number(.nan), "3", " 3 ", "NaN",
    ]

    static func random(_ random: inout SeededGenerator) -> FetchContext {
        func maybe<T>(_ values: [T]) -> T? {
            Int.random(in: 0..<4, using: &random) == 0 ? nil : values.randomElement(using: &random)!
        }
        func signals() -> [String: SignalValue] {
            var result: [String: SignalValue] = [:]
            for key in signalKeys where Bool.random(using: &random) {
                result[key] = signalValues.randomElement(using: &random)!
            }
            return result
        }
        // 2025-06 to 2027-06, around the seeds' dates.
        let epoch = 1_748_736_000.0
        let span = 2 * 365 * 86_400.0
        return FetchContext(
            appInstanceId: maybe(["tester-1", "tester-2", "abc", "", "b2a1-9f", "😀"]),
            appId: maybe(["com.example.shop", "com.example.lite", ""]),
            platform: maybe(Platform.allCases),
            appVersion: maybe([
                "1.9.9", "2.0.0", "2", "2.1.0.0.0", "1.1.4", "x", "", "18446744073709551616", "3.0-beta",
            ]),
            appBuild: maybe(["90", "91", "120", "9", "900", "a9"]),
            countryCode: maybe(["JP", "gb", "us", "", "Jp"]),
            languageCode: maybe(["en_GB", "en-gb", "ja-JP", "en", "", "-", "zh-Hant-TW", "EN"]),
            customSignals: signals(),
            userProperties: signals(),
            firstOpenTime: maybe([Date(timeIntervalSince1970: epoch + Double.random(in: 0..<span, using: &random))]),
            now: Date(timeIntervalSince1970: epoch + Double.random(in: 0..<span, using: &random))
        )
    }

    /// A copy of `context` in which everything the conditions do not read is different.
    static func varying(_ context: FetchContext, outside inputs: ConditionInputs, _ random: inout SeededGenerator)
        -> FetchContext
    {
        let other = Self.random(&random)
        var result = context
        let fields = inputs.fields
        if !fields.contains(.platform) { result.platform = other.platform }
        if !fields.contains(.appId) { result.appId = other.appId }
        if !fields.contains(.appVersion) { result.appVersion = other.appVersion }
        if !fields.contains(.appBuild) { result.appBuild = other.appBuild }
        if !fields.contains(.countryCode) { result.countryCode = other.countryCode }
        if !fields.contains(.languageCode) { result.languageCode = other.languageCode }
        if !fields.contains(.appInstanceId) { result.appInstanceId = other.appInstanceId }
        if !fields.contains(.firstOpenTime) { result.firstOpenTime = other.firstOpenTime }
        if !fields.contains(.now) { result.now = other.now }
        result.customSignals = context.customSignals.filter { inputs.customSignalKeys.contains($0.key) }
        for (key, value) in other.customSignals where !inputs.customSignalKeys.contains(key) {
            result.customSignals[key] = value
        }
        result.userProperties = context.userProperties.filter { inputs.userPropertyKeys.contains($0.key) }
        for (key, value) in other.userProperties where !inputs.userPropertyKeys.contains(key) {
            result.userProperties[key] = value
        }
        return result
    }
}

/// Byte-level damage: the mistakes of hand-edited files, broken transports and hostile clients.
private enum ByteMutator {
    static let interestingBytes: [UInt8] = [
        0x00, 0x01, 0x1F, 0x20, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
        UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["),
        UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "0"), UInt8(ascii: "-"),
        UInt8(ascii: "e"), UInt8(ascii: "."), UInt8(ascii: "n"), UInt8(ascii: "t"), UInt8(ascii: "u"),
    ]

    /// Invalid UTF-8: overlong, surrogates, beyond U+10FFFF, truncated; plus a BOM and NUL.
    static let rawFragments: [[UInt8]] = [
        [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xF0, 0x9F],
        [0xEF, 0xBB, 0xBF], [0xFF, 0xFE], [0x00],
    ]

    /// Bad and borderline escapes, numbers, literals and separators.
    static let textFragments = [
        #"\ud800"#, #"\udc00"#, #"\ud83d\ude00"#, #"\ud800\u0041"#, #"\ud800\\"#, #"\u0000"#, #"\uZZZZ"#, #"\u12"#,
        #"\x41"#, #"\'"#, "\\", "\"", "1e999999", "-1e-999999", "123456789012345678901234567890.5e+308", "-0.0e-0",
        "01", "1.", ".5", "+1", "-", "1e", "NaN", "Infinity", "nul", "tru", "true", "null", ",", ",,", ":", "{}", "[]",
        #"{"":""}"#, #""a":1,"a":2"#, "//", "/*", "\t\r\n ", "\u{2028}", "😀", "e\u{301}", "\u{212A}",
    ]

    static let fragments = rawFragments + textFragments.map { Array($0.utf8) }

    /// Openers around the parser's depth limit of 512, built once.
    static let nestings: [[UInt8]] = [2, 100, 511, 512, 513, 5_000].flatMap { depth in
        ["[", #"{"a":"#].map { opener in Array(String(repeating: opener, count: depth).utf8) }
    }

    static func mutate(_ original: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var bytes = original
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let position = Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                if position < bytes.count { bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &random) }
            case 1:
                if position < bytes.count { bytes[position] = interestingBytes.randomElement(using: &random)! }
            case 2:
                bytes.insert(interestingBytes.randomElement(using: &random)!, at: position)
            case 3:
                let length = Int.random(in: 1...16, using: &random)
                bytes.removeSubrange(position..<min(bytes.count, position + length))
            case 4:
                bytes.removeSubrange(position...)
            case 5:
                // Copy a span elsewhere: repeated members, repeated closing brackets, half tokens.
                let start = Int.random(in: 0...bytes.count, using: &random)
                let end = min(bytes.count, start + Int.random(in: 1...64, using: &random))
                bytes.insert(contentsOf: bytes[start..<end], at: position)
            case 6:
                bytes.insert(contentsOf: nestings.randomElement(using: &random)!, at: position)
            default:
                bytes.insert(contentsOf: fragments.randomElement(using: &random)!, at: position)
            }
        }
        return bytes
    }
}

/// Edits of the JSON tree: any node may become anything, so the decoder meets every wrong shape.
private enum StructureMutator {
    enum Step: Hashable {
        case key(String)
        case index(Int)
    }

    static let keys = [
        "conditions", "parameters", "parameterGroups", "version", "name", "expression", "tagColor", "defaultValue",
        "conditionalValues", "valueType", "description", "value", "useInAppDefault", "rolloutValue",
        "personalizationValue", "experimentValue", "versionNumber", "updateUser", "email", "rollbackSource", "etag",
        "", "é", "e\u{301}", "\u{212A}", "p", "ios_old", "half", "welcome", "a b", "\u{0}",
    ]

    static let strings = [
        "", " ", "true", "false", "1", "-0", "1e400", "NaN", "Infinity", "0x1F", "+1", ".5", "5.", "١٢٣", "{\"a\":1}",
        "[1,2", "null", "\u{0}", "\u{FEFF}", "e\u{301}", "\u{212A}", "😀", "'", "\"", "\\", "a\nb", "STRING",
        "BOOLEAN", "NUMBER", "JSON", "PARAMETER_VALUE_TYPE_UNSPECIFIED", "float", String(repeating: "x", count: 257),
        String(repeating: "(", count: 70) + "true" + String(repeating: ")", count: 70),
        String(repeating: "ab", count: 5_000),
    ]

    static let numbers = [
        "0", "-0", "1", "12", "-1", "1.5", "1e3", "1E+400", "-1e-400", "123456789012345678901234567890",
        "0.000000000000000000000000000001",
    ]

    /// A random node, found by a random walk from the root (cheaper than listing every node):
    /// one level down at least, then each level stops with probability 1/5.
    static func randomPath(_ value: JSONValue, _ random: inout SeededGenerator) -> [Step] {
        var path: [Step] = []
        var node = value
        while path.isEmpty || Int.random(in: 0..<5, using: &random) != 0 {
            switch node {
            case .object(let object) where !object.isEmpty:
                let member = object.members.randomElement(using: &random)!
                path.append(.key(member.key))
                node = member.value
            case .array(let elements) where !elements.isEmpty:
                let index = Int.random(in: 0..<elements.count, using: &random)
                path.append(.index(index))
                node = elements[index]
            default:
                return path
            }
        }
        return path
    }

    /// Applies `transform` at `path`; a `nil` result removes the node.
    static func updating(_ value: JSONValue, at path: ArraySlice<Step>, _ transform: (JSONValue) -> JSONValue?)
        -> JSONValue?
    {
        guard let step = path.first else { return transform(value) }
        switch (value, step) {
        case (.object(var object), .key(let key)):
            guard let child = object[key] else { return value }
            object[key] = updating(child, at: path.dropFirst(), transform)
            return .object(object)
        case (.array(var elements), .index(let index)) where index < elements.count:
            if let child = updating(elements[index], at: path.dropFirst(), transform) {
                elements[index] = child
            } else {
                elements.remove(at: index)
            }
            return .array(elements)
        default:
            return value
        }
    }

    static func node(_ value: JSONValue, at path: ArraySlice<Step>) -> JSONValue? {
        guard let step = path.first else { return value }
        switch (value, step) {
        case (.object(let object), .key(let key)): return object[key].flatMap { node($0, at: path.dropFirst()) }
        case (.array(let elements), .index(let index)) where index < elements.count:
            return node(elements[index], at: path.dropFirst())
        default: return nil
        }
    }

    static func randomValue(_ random: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth > 2 ? 4 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .number(numbers.randomElement(using: &random)!)
        case 3: return .string(strings.randomElement(using: &random)!)
        case 4:
            return .array(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                object[keys.randomElement(using: &random)!] = randomValue(&random, depth: depth + 1)
            }
            return .object(object)
        }
    }

    static func mutate(_ original: JSONValue, _ random: inout SeededGenerator) -> JSONValue {
        var value = original
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let path = randomPath(value, &random)[...]
            let choice = Int.random(in: 0..<9, using: &random)
            let updated = updating(value, at: path) { node -> JSONValue? in
                switch (choice, node) {
                case (0, _): return randomValue(&random)
                case (1, _): return nil
                case (2, .object(var object)):
                    object[keys.randomElement(using: &random)!] = randomValue(&random)
                    return .object(object)
                case (2, .array(var elements)):
                    if let element = elements.randomElement(using: &random) {
                        elements.insert(element, at: Int.random(in: 0...elements.count, using: &random))
                    }
                    return .array(elements)
                case (3, .object(let object)) where !object.isEmpty:
                    // Rename a member in place; a clash merges, as a repeated key would.
                    let old = object.keys.randomElement(using: &random)!
                    let new =
                        Bool.random(using: &random)
                        ? keys.randomElement(using: &random)! : object.keys.randomElement(using: &random)!
                    return .object(
                        JSONObject(object.members.map { $0.key == old ? .init(key: new, value: $0.value) : $0 }))
                case (4, .string):
                    return .string(strings.randomElement(using: &random)!)
                case (5, _):
                    return [JSONValue.object([:]), .array([]), .null, .string(""), .number("0")].randomElement(
                        using: &random)!
                case (6, _):
                    var nested = node
                    // Mostly shallow: values near the parser's 512 limit are slow to handle in a debug build.
                    let depth = [3, 3, 3, 20, 20, 60, 505, 520].randomElement(using: &random)!
                    for _ in 0..<depth {
                        nested = Bool.random(using: &random) ? .array([nested]) : .object(["x": nested])
                    }
                    return nested
                case (7, .array(var elements)):
                    elements.shuffle(using: &random)
                    return .array(elements)
                case (7, .object(let object)):
                    return .object(JSONObject(object.members.shuffled(using: &random)))
                default:
                    return .number(numbers.randomElement(using: &random)!)
                }
            }
            value = updated ?? .null
            if choice == 8, let copied = node(value, at: randomPath(value, &random)[...]) {
                // Graft a copy of one part elsewhere: a parameter into a group, a condition into values…
                let target = randomPath(value, &random)
                let key = keys.randomElement(using: &random)!
                value =
                    updating(value, at: target[...]) { node in
                        guard case .object(var object) = node else { return node }
                        object[key] = copied
                        return .object(object)
                    } ?? value
            }
        }
        return value
    }

    /// Serializes compactly; sometimes repeats a member of one object, which only text can express.
    static func serialize(_ value: JSONValue, _ random: inout SeededGenerator) -> [UInt8] {
        guard Int.random(in: 0..<6, using: &random) == 0 else { return value.jsonBytes() }
        var objects = 0
        countObjects(value, &objects)
        guard objects > 0 else { return value.jsonBytes() }
        var remaining = Int.random(in: 0..<objects, using: &random)
        var output: [UInt8] = []
        write(value, repeatingIn: &remaining, into: &output)
        return output
    }

    private static func countObjects(_ value: JSONValue, _ count: inout Int) {
        switch value {
        case .object(let object):
            count += 1
            for member in object { countObjects(member.value, &count) }
        case .array(let elements): for element in elements { countObjects(element, &count) }
        default: break
        }
    }

    private static func write(_ value: JSONValue, repeatingIn remaining: inout Int, into output: inout [UInt8]) {
        switch value {
        case .object(let object):
            let repeats = remaining == 0
            remaining -= 1
            var members = object.members
            if repeats, let last = members.last { members.insert(last, at: 0) }
            output.append(UInt8(ascii: "{"))
            for (position, member) in members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                output.append(contentsOf: JSONValue.string(member.key).jsonBytes())
                output.append(UInt8(ascii: ":"))
                write(member.value, repeatingIn: &remaining, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                write(element, repeatingIn: &remaining, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        default:
            output.append(contentsOf: value.jsonBytes())
        }
    }
}

/// Edits of the template model: plausible templates that are valid, or wrong in one precise way.
private enum ModelMutator {
    static let keys = [
        "p", "_", "A_1", "max_items", "welcome", "express_pay", "1abc", "has space", "dash-key", "é", "",
        String(repeating: "k", count: 256), String(repeating: "k", count: 257), "\u{212A}", "K",
    ]

    static let conditionNames = [
        "ios_old", "half", "pro", "new", "", String(repeating: "n", count: 100), String(repeating: "n", count: 101),
        "e\u{301}", "é", "with space", "😀",
    ]

    static let values: [ValueType: [String]] = [
        .string: ["", "hello", "😀", "\u{0}", "a\"b\\c", "e\u{301}"],
        .boolean: ["true", "false", "TRUE", "1", "", "yes"],
        .number: ["0", "-1.5", "1e3", "+2", ".5", "5.", "1e400", "NaN", "Infinity", "0x10", "١", "1_000", " 1", ""],
        .json: ["{}", "[]", "null", "1", "\"s\"", "{\"a\":[1,{\"b\":null}]}", "{", "", "{'a':1}", "[1,]"],
    ]

    static func expression(_ random: inout SeededGenerator) -> String {
        var expression = ConditionParserTests.accepted.randomElement(using: &random)!
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            let index = expression.index(
                expression.startIndex, offsetBy: Int.random(in: 0...expression.count, using: &random))
            expression.insert(Array("()[]'\",.!=<>&| 😀\\").randomElement(using: &random)!, at: index)
        case 1:
            expression = (0..<Int.random(in: 2...60, using: &random)).map { _ in "true" }.joined(separator: " && ")
        case 2:
            expression += " && " + ConditionParserTests.accepted.randomElement(using: &random)!
        default: break
        }
        return expression
    }

    static func value(for type: ValueType, _ random: inout SeededGenerator) -> ParameterValue {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return .useInAppDefault
        case 1:
            let objects: [JSONObject] = [
                ["rolloutValue": .object(["rolloutId": .string("r"), "value": .string("x"), "percent": .integer(5)])],
                ["useInAppDefault": .bool(false)], ["value": .string("1"), "useInAppDefault": .bool(true)],
                ["value": .integer(1)], [:], ["unknownKind": .object([:])],
            ]
            return ParameterValue(json: objects.randomElement(using: &random)!)
        default:
            return .value(values[type]!.randomElement(using: &random)!)
        }
    }

    static func mutate(_ original: RemoteConfigTemplate, _ random: inout SeededGenerator) -> RemoteConfigTemplate {
        var template = original
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let conditionIndex = template.conditions.indices.randomElement(using: &random)
            let names = template.conditions.map(\.name)
            switch Int.random(in: 0..<38, using: &random) {
            case 0..<6:
                if let conditionIndex { template.conditions[conditionIndex].expression = expression(&random) }
            case 6..<8:
                if let conditionIndex {
                    template.conditions[conditionIndex].name = conditionNames.randomElement(using: &random)!
                }
            case 8..<10:
                template.conditions.shuffle(using: &random)
            case 10..<12:
                if let conditionIndex { template.conditions.remove(at: conditionIndex) }
            case 12..<14:
                template.conditions.insert(
                    Condition(name: conditionNames.randomElement(using: &random)!, expression: expression(&random)),
                    at: Int.random(in: 0...template.conditions.count, using: &random))
            case 14..<30:
                editParameter(&template, names: names, &random)
            case 30..<33:
                // Move or copy a top-level parameter into a group.
                guard let key = template.parameters.keys.randomElement(using: &random) else { break }
                let group = ["checkout", "g", "new_group", "force_update"].randomElement(using: &random)!
                var target = template.parameterGroups[group] ?? ParameterGroup()
                target.parameters[key] = template.parameters[key]
                template.parameterGroups[group] = target
                if Bool.random(using: &random) { template.parameters[key] = nil }
            case 33..<36:
                template.version = Bool.random(using: &random) ? nil : TemplateVersion(versionNumber: "3")
            case 36:
                template.conditions += (0..<50).map { Condition(name: "c\($0)", expression: "percent <= \($0)") }
            default:
                template.extra[StructureMutator.keys.randomElement(using: &random)!] = StructureMutator.randomValue(
                    &random)
            }
        }
        return template
    }

    private static func editParameter(
        _ template: inout RemoteConfigTemplate,
        names: [String],
        _ random: inout SeededGenerator
    ) {
        let groupName = Bool.random(using: &random) ? nil : template.parameterGroups.keys.randomElement(using: &random)
        var parameters = groupName.flatMap { template.parameterGroups[$0]?.parameters } ?? template.parameters
        let key = parameters.keys.randomElement(using: &random) ?? keys.randomElement(using: &random)!
        var parameter = parameters[key] ?? Parameter()
        var newKey = key
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            parameter.valueType = ValueType.allCases.randomElement(using: &random)!
            parameter.defaultValue = value(for: parameter.valueType, &random)
        case 1:
            parameter.defaultValue = value(for: parameter.valueType, &random)
        case 2:
            let name = Bool.random(using: &random) ? names.randomElement(using: &random) ?? "none" : "no_such_condition"
            parameter.conditionalValues[name] = value(for: parameter.valueType, &random)
        case 3:
            if let name = parameter.conditionalValues.keys.randomElement(using: &random) {
                parameter.conditionalValues[name] = Bool.random(using: &random) ? nil : value(for: .string, &random)
            }
        case 4:
            newKey = keys.randomElement(using: &random)!
        default:
            parameter.description = StructureMutator.strings.randomElement(using: &random)!
        }
        // Rebuild in order so a renamed key keeps its position (a clash merges into the first).
        parameters = OrderedStringMap(parameters.map { ($0.0 == key ? newKey : $0.0, $0.0 == key ? parameter : $0.1) })
        if parameters[newKey] == nil { parameters[newKey] = parameter }
        if let groupName {
            template.parameterGroups[groupName]?.parameters = parameters
        } else {
            template.parameters = parameters
        }
    }
}
