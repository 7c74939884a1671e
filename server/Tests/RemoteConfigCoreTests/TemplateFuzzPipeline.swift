import Foundation
import RemoteConfigTestHistories
import Testing

@testable import RemoteConfigCore

// The checking half of the template fuzz tests (TemplateFuzzTests.swift): the pipeline that runs one
// input through every stage and checks the invariants that hold for any input, the plain reference
// resolver it compares resolution against, and the fetch contexts it resolves with.

/// Where an input stopped.
enum FuzzOutcome: Hashable, CustomStringConvertible {
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
struct FuzzPipeline {
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
