import RemoteConfigVersions

/// Per-request state: caller inputs normalised at most once, and percent buckets hashed at
/// most once per seed, however many atoms read them.
struct EvaluationScratch {
    let context: FetchContext
    let seeds: [String]
    /// Buckets hashed so far by seed index, `notHashed` until then: the first eight in place (templates
    /// rarely have more seeds), as an array allocated for each caller showed in the fetch profile.
    private var firstBuckets = InlineArray<8, UInt64>(repeating: notHashed)
    private var moreBuckets: [UInt64]
    /// Not a bucket: buckets are below `PercentBucket.bucketCount`.
    private static let notHashed = UInt64.max
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
        let inPlace = firstBuckets.count
        self.moreBuckets = seeds.count > inPlace ? Array(repeating: Self.notHashed, count: seeds.count - inPlace) : []
    }

    mutating func bucket(seedIndex: Int) -> UInt64? {
        guard let id = context.appInstanceId else { return nil }
        let inPlace = firstBuckets.count
        let known = seedIndex < inPlace ? firstBuckets[seedIndex] : moreBuckets[seedIndex - inPlace]
        if known != Self.notHashed { return known }
        let bucket = PercentBucket.bucket(seed: seeds[seedIndex], appInstanceId: id)
        if seedIndex < inPlace {
            firstBuckets[seedIndex] = bucket
        } else {
            moreBuckets[seedIndex - inPlace] = bucket
        }
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
