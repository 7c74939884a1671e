import RemoteConfigVersions

/// An atom with everything that does not depend on the caller computed in advance.
///
/// Indirect: evaluating an atom copies it, and copying a multi-payload enum of sets, strings and arrays went
/// through its generic value witness (1.2% of a new device's fetch in the profile); a boxed one is a retain.
indirect enum CompiledAtom: Sendable {
    case platform(equal: Bool, Platform)
    /// Lowercased codes.
    case country(Set<String>)
    /// Normalised tags (lowercase, `_` as `-`).
    case language(Set<String>)
    case appId(equal: Bool, String)
    /// `nil` when the literal is not a version: the atom is then false for any present input.
    case version(StringSource, ComparisonOperator, SemanticVersion?)
    case contains(StringSource, [String])
    case notContains(StringSource, [String])
    case exactlyMatches(StringSource, Set<String>)
    case matches(StringSource, [CompiledRegex])
    case stringEquality(StringSource, equal: Bool, String)
    case numeric(StringSource, ComparisonOperator, Double)
    case instanceId(Set<String>)
    /// Seconds since 1970.
    case dateTime(ComparisonOperator, Double)
    case firstOpen(ComparisonOperator, Double)
    case percent(seedIndex: Int, PercentRange)

    init(_ atom: ConditionAtom, seeds: inout SeedTable) {
        switch atom {
        case .platform(let op, let platform): self = .platform(equal: op == .equal, platform)
        case .countryIn(let codes): self = .country(Set(codes.map { $0.lowercased() }))
        case .languageIn(let tags): self = .language(Set(tags.map(LanguageTag.normalize)))
        case .appId(let op, let id): self = .appId(equal: op == .equal, id)
        case .versionCompare(let source, let op, let text): self = .version(source, op, SemanticVersion(text))
        case .stringMethod(let source, .contains, let values): self = .contains(source, values.map(JSText.trimmed))
        case .stringMethod(let source, .notContains, let values):
            self = .notContains(source, values.map(JSText.trimmed))
        case .stringMethod(let source, .exactlyMatches, let values):
            self = .exactlyMatches(source, Set(values.map(JSText.trimmed)))
        case .stringMethod(let source, .matches, let patterns):
            // The parser has already rejected patterns that do not compile.
            self = .matches(source, patterns.compactMap { try? CompiledRegex($0) })
        case .stringEquality(let source, let op, let text):
            self = .stringEquality(source, equal: op == .equal, JSText.trimmed(text))
        case .numericCompare(let source, let op, let value): self = .numeric(source, op, value)
        case .instanceIdIn(let ids): self = .instanceId(Set(ids))
        case .dateTime(let op, let date): self = .dateTime(op, date.instant.timeIntervalSince1970)
        case .firstOpenTimestamp(let op, let date): self = .firstOpen(op, date.instant.timeIntervalSince1970)
        case .percent(let seed, let range): self = .percent(seedIndex: seeds.index(of: seed), range)
        }
    }
}
