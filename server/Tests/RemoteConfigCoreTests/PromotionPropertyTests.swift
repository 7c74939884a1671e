import RemoteConfigCore
import RemoteConfigTestHistories
import Testing

/// Properties of the promotion merge over seeded random histories (see `PromotionHistory`).
@Suite struct PromotionPropertyTests {
    static let cases: UInt64 = 200

    /// The result references only conditions it defines, and is publishable.
    func expectSound(_ result: RemoteConfigTemplate, _ comment: Comment) {
        let defined = Set(result.conditions.map(\.name))
        #expect(result.referencedConditions.isSubset(of: defined), comment)
        #expect((try? PreparedTemplate(result)) != nil, comment)
        #expect(result.version == nil, comment)
    }

    func expectValid(_ templates: RemoteConfigTemplate..., comment: Comment) {
        for template in templates { #expect((try? PreparedTemplate(template)) != nil, comment) }
    }

    @Test func promotingTwiceChangesNothingTheSecondTime() throws {
        var strict = 0
        for seed in 1...Self.cases {
            var history = PromotionHistory(seed: seed)
            let base = history.base()
            let source = history.edited(base, count: history.int(0...5))
            let target = history.edited(base, count: history.int(0...3))
            expectValid(base, source, target, comment: "seed \(seed)")
            var request = history.request()
            var first = Promotion.plan(source: source, target: target, base: base, request: request)
            if !first.conflicts.isEmpty {
                request.overwriteTargetChanges = true
                first = Promotion.plan(source: source, target: target, base: base, request: request)
            }
            let firstResult = try #require(first.result, "seed \(seed): \(first.conflicts)")
            expectSound(firstResult, "seed \(seed)")

            let second = Promotion.plan(source: source, target: firstResult, base: source, request: request)
            #expect(second.conflicts.isEmpty, "seed \(seed)")
            #expect(second.parameters.allSatisfy { !$0.promoted }, "seed \(seed)")
            // Only what the first promotion kept from the target (not being asked to overwrite it) may differ.
            let allowed: Set<PromotionStatus> =
                request.overwriteTargetChanges ? [.unchanged, .local] : [.unchanged, .local, .targetChanged]
            #expect(second.parameters.allSatisfy { allowed.contains($0.status) }, "seed \(seed)")
            #expect(second.result == firstResult, "seed \(seed)")
            if request.overwriteTargetChanges { strict += 1 }
        }
        #expect(strict >= 40)
    }

    @Test func aTargetOnlyChangeSurvivesAPromotionThatDoesNotNameIt() throws {
        var kept = 0
        for seed in 1...Self.cases {
            var history = PromotionHistory(seed: 10_000 + seed)
            let base = history.base()
            let source = history.edited(base, count: history.int(1...5))
            let untouched = PromotionHistory.keys.filter {
                Promotion.sameParameter(source.parameter($0), in: source, base.parameter($0), in: base)
            }
            guard !untouched.isEmpty else { continue }
            let key = history.pick(untouched)
            var target = base
            history.editParameter(&target, key, kind: history.int(0...7))
            guard !Promotion.sameParameter(target.parameter(key), in: target, base.parameter(key), in: base) else {
                continue
            }
            expectValid(source, target, comment: "seed \(seed)")
            var request = PromotionRequest()
            if history.chance(0.3) { request.parameters = PromotionHistory.keys.filter { $0 != key } }
            let plan = Promotion.plan(source: source, target: target, base: base, request: request)
            let entry = plan.parameters.first { $0.key == key }
            if request.parameters == nil {
                #expect(entry?.status == .targetChanged && entry?.promoted == false, "seed \(seed)")
            } else {
                #expect(entry == nil, "seed \(seed)")
            }
            if let result = plan.result {
                kept += 1
                expectSound(result, "seed \(seed)")
                let placed = result.placement(key)
                let expected = target.placement(key)
                #expect(placed?.group == expected?.group && placed?.parameter == expected?.parameter, "seed \(seed)")
            } else {
                // Only carrying a condition the hotfix uses, with another meaning, may stop the promotion.
                let used = Set(target.parameter(key)?.conditionalValues.keys ?? [])
                #expect(plan.conflicts.allSatisfy { $0.reason == .condition && used.contains($0.key) }, "seed \(seed)")
            }
        }
        #expect(kept >= 100)
    }

    @Test func promotingEverythingOntoAnUntouchedTargetServesAsTheSourceDoes() throws {
        var promotedKeys = 0
        for seed in 1...Self.cases {
            var history = PromotionHistory(seed: 20_000 + seed)
            let base = history.base()
            let source = history.edited(base, count: history.int(1...8))
            let plan = Promotion.plan(
                source: source, target: base, base: history.chance(0.8) ? base : nil, request: PromotionRequest())
            let result = try #require(plan.result, "seed \(seed): \(plan.conflicts)")
            expectSound(result, "seed \(seed)")
            promotedKeys += plan.parameters.filter(\.promoted).count
            let expected = try PreparedTemplate(source).compiled
            let actual = try PreparedTemplate(result).compiled
            var mismatches = 0
            for _ in 0..<50 {
                let context = history.context()
                if actual.resolve(context).values != expected.resolve(context).values { mismatches += 1 }
            }
            #expect(mismatches == 0, "seed \(seed)")
            #expect(Set(result.allParameters.map(\.key)) == Set(source.allParameters.map(\.key)), "seed \(seed)")
        }
        #expect(promotedKeys >= 400)
    }

    @Test func aResultNeverReferencesAConditionItLacks() throws {
        var results = 0
        var seen: [PromotionConditionStatus: Int] = [:]
        var reasons: [PromotionConflict.Reason: Int] = [:]
        for seed in 1...Self.cases {
            var history = PromotionHistory(seed: 30_000 + seed)
            let base = history.base()
            let source = history.edited(base, count: history.int(0...6))
            let target = history.edited(base, count: history.int(0...6))
            let request = history.request()
            let plan = Promotion.plan(
                source: source, target: target, base: history.chance(0.8) ? base : nil, request: request)
            for condition in plan.conditions { seen[condition.status, default: 0] += 1 }
            for conflict in plan.conflicts { reasons[conflict.reason, default: 0] += 1 }
            #expect(plan.parameters.map(\.key) == plan.parameters.map(\.key).sorted(), "seed \(seed)")
            #expect((plan.result == nil) == !plan.conflicts.isEmpty, "seed \(seed)")
            guard let result = plan.result else { continue }
            results += 1
            expectSound(result, "seed \(seed)")
            // Every condition of the result is listed, in the result's order, before the dropped ones.
            let listed = plan.conditions.filter { $0.status != .dropped }.map(\.name)
            #expect(listed == result.conditions.map(\.name), "seed \(seed)")
        }
        #expect(results >= 100)
    }
}
