import RemoteConfigVersions

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
