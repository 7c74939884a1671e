import RemoteConfigVersions

/// Per-request state: caller inputs normalised at most once, and percent buckets hashed at
/// most once per seed, however many atoms read them.
struct EvaluationScratch {
    let context: FetchContext
    let seeds: [String]
    private var buckets: [UInt64?]
    private var appVersion: Lazy<SemanticVersion?> = .pending
    private var appBuild: Lazy<SemanticVersion?> = .pending
    private var osVersion: Lazy<SemanticVersion?> = .pending
    private var country: Lazy<String?> = .pending
    private var languages: Lazy<[String]> = .pending

    private enum Lazy<Value> {
        case pending
        case ready(Value)
    }

    init(context: FetchContext, seeds: [String]) {
        self.context = context
        self.seeds = seeds
        self.buckets = Array(repeating: nil, count: seeds.count)
    }

    mutating func bucket(seedIndex: Int) -> UInt64? {
        guard let id = context.appInstanceId else { return nil }
        if let bucket = buckets[seedIndex] { return bucket }
        let bucket = PercentBucket.bucket(seed: seeds[seedIndex], appInstanceId: id)
        buckets[seedIndex] = bucket
        return bucket
    }

    /// The text an atom reads, or `nil` when the caller did not send it.
    func text(_ source: StringSource) -> String? {
        switch source {
        case .appVersion: return context.appVersion
        case .appBuild: return context.appBuild
        case .osVersion: return context.osVersion
        case .customSignal(let key): return context.customSignals[key]?.text
        case .userProperty(let key): return context.userProperties[key]?.text
        }
    }

    func number(_ source: StringSource) -> Double?? {
        switch source {
        case .appVersion, .appBuild, .osVersion: return text(source).map { SignalValue.string($0).number }
        case .customSignal(let key): return context.customSignals[key].map(\.number)
        case .userProperty(let key): return context.userProperties[key].map(\.number)
        }
    }

    /// The parsed version; outer `nil` = not sent, inner `nil` = sent but not a version.
    mutating func version(_ source: StringSource) -> SemanticVersion?? {
        switch source {
        case .appVersion:
            if case .ready(let version) = appVersion { return context.appVersion == nil ? nil : version }
            guard let text = context.appVersion else { return nil }
            let version = SemanticVersion(text)
            appVersion = .ready(version)
            return .some(version)
        case .appBuild:
            if case .ready(let version) = appBuild { return context.appBuild == nil ? nil : version }
            guard let text = context.appBuild else { return nil }
            let version = SemanticVersion(text)
            appBuild = .ready(version)
            return .some(version)
        case .osVersion:
            if case .ready(let version) = osVersion { return context.osVersion == nil ? nil : version }
            guard let text = context.osVersion else { return nil }
            let version = SemanticVersion(text)
            osVersion = .ready(version)
            return .some(version)
        case .customSignal, .userProperty:
            guard let text = text(source) else { return nil }
            return .some(SemanticVersion(text))
        }
    }

    mutating func countryCode() -> String? {
        if case .ready(let code) = country { return code }
        let code = context.countryCode?.lowercased()
        country = .ready(code)
        return code
    }

    /// The caller's tag and its prefixes: `zh-hant-tw`, `zh-hant`, `zh`; empty when not sent.
    mutating func languageTags() -> [String] {
        if case .ready(let tags) = languages { return tags }
        var tags: [String] = []
        if let code = context.languageCode {
            var tag = LanguageTag.normalize(code)
            tags.append(tag)
            while let dash = tag.lastIndex(of: "-") {
                tag = String(tag[..<dash])
                if !tag.isEmpty { tags.append(tag) }
            }
        }
        languages = .ready(tags)
        return tags
    }
}

/// String operators compare values with surrounding white space removed on both sides, as Firebase's
/// evaluator does with JavaScript's `trim()` (`exactlyMatches([' basic'])` matches `' basic '`).
enum JSText {
    /// `text` without leading and trailing white space; no copy when there is none.
    static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.first, let last = scalars.last,
            JSNumber.isWhiteSpace(first) || JSNumber.isWhiteSpace(last)
        else { return text }
        guard let start = scalars.firstIndex(where: { !JSNumber.isWhiteSpace($0) }) else { return "" }
        let end = scalars.lastIndex(where: { !JSNumber.isWhiteSpace($0) })!
        return String(scalars[start...end])
    }
}

/// Language tags compare case-insensitively, with `_` and `-` equivalent.
enum LanguageTag {
    static func normalize(_ tag: String) -> String {
        String(tag.lowercased().map { $0 == "_" ? "-" : $0 })
    }
}

extension CompiledAtom {
    func evaluate(_ scratch: inout EvaluationScratch) -> ConditionTruth {
        switch self {
        case .platform(let equal, let platform):
            guard let actual = scratch.context.platform else { return .unknown }
            return .from((actual == platform) == equal)
        case .country(let codes):
            guard let code = scratch.countryCode() else { return .unknown }
            return .from(codes.contains(code))
        case .language(let tags):
            let callerTags = scratch.languageTags()
            guard !callerTags.isEmpty else { return .unknown }
            return .from(callerTags.contains { tags.contains($0) })
        case .appId(let equal, let id):
            guard let actual = scratch.context.appId else { return .unknown }
            return .from((actual == id) == equal)
        case .version(let source, let op, let target):
            guard let actual = scratch.version(source) else { return .unknown }
            guard let actual, let target else { return .false }
            return .from(op.holds(actual, target))
        case .contains(let source, let needles):
            guard let text = scratch.text(source).map(JSText.trimmed) else { return .unknown }
            return .from(needles.contains { text.contains($0) })
        case .notContains(let source, let needles):
            guard let text = scratch.text(source).map(JSText.trimmed) else { return .unknown }
            return .from(!needles.contains { text.contains($0) })
        case .exactlyMatches(let source, let values):
            guard let text = scratch.text(source).map(JSText.trimmed) else { return .unknown }
            return .from(values.contains(text))
        case .matches(let source, let regexes):
            guard let text = scratch.text(source) else { return .unknown }
            return .from(regexes.contains { $0.matches(text) })
        case .stringEquality(let source, let equal, let value):
            guard let text = scratch.text(source).map(JSText.trimmed) else { return .unknown }
            return .from((text == value) == equal)
        case .numeric(let source, let op, let value):
            guard let number = scratch.number(source) else { return .unknown }
            guard let number else { return .false }
            return .from(op.holds(number, value))
        case .instanceId(let ids):
            guard let id = scratch.context.appInstanceId else { return .unknown }
            return .from(ids.contains(id))
        case .dateTime(let op, let instant):
            return .from(op.holds(scratch.context.now.timeIntervalSince1970, instant))
        case .firstOpen(let op, let instant):
            guard let firstOpen = scratch.context.firstOpenTime else { return .unknown }
            return .from(op.holds(firstOpen.timeIntervalSince1970, instant))
        case .percent(let seedIndex, let range):
            guard let bucket = scratch.bucket(seedIndex: seedIndex) else { return .unknown }
            return .from(PercentBucket.contains(bucket, range))
        }
    }
}
