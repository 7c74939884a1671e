import Foundation
import HTTPTypes
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestHistories
import RemoteConfigTestSupport
import Testing

/// The merge rules over seeded random template histories, end to end: published through the API, stored in
/// PostgreSQL, promoted through `remoteConfig:promote`, read back and evaluated.
@Suite struct PromotionHistoryTests {
    static let cases = 10

    static func stored(_ app: TestApp.Session, _ project: String) async throws -> RemoteConfigTemplate {
        let reply = try await app.call(.get, "/v1/projects/\(project)/remoteConfig")
        return try RemoteConfigTemplate(json: Array(reply.body))
    }

    static func promote(_ app: TestApp.Session, into target: String) async throws -> TestApp.Reply {
        try await app.call(
            .post, "/v1/projects/\(target)/remoteConfig:promote", json: [:], headers: [.ifMatch: "*"])
    }

    @Test func theMergeRulesHoldOverRandomHistories() async throws {
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            var kept = 0
            for seed in 0..<Self.cases {
                var history = PromotionHistory(seed: 40_000 + UInt64(seed))
                let (source, target) = ("staging-\(seed)", "production-\(seed)")
                try await app.createProject(source)
                try await app.createProject(target)
                _ = try await app.call(.patch, "/v1/projects/\(source)", json: ["promotesTo": .string(target)])
                let base = history.base()
                #expect(try await app.publish(source, base.jsonValue).status == 200, "seed \(seed)")
                #expect(try await app.publish(target, base.jsonValue).status == 200, "seed \(seed)")
                // The first promotion records its base, though nothing differs.
                #expect(try await Self.promote(app, into: target).status == 200, "seed \(seed)")

                // Everything promoted onto a target untouched since the base answers as the source does.
                let edited = history.edited(base, count: history.int(1...6))
                #expect(try await app.publish(source, edited.jsonValue).status == 200, "seed \(seed)")
                let promoted = try await Self.promote(app, into: target)
                #expect(promoted.status == 200, "seed \(seed): \(promoted.text)")
                let expected = try PreparedTemplate(try await Self.stored(app, source)).compiled
                let actual = try PreparedTemplate(try await Self.stored(app, target)).compiled
                for _ in 0..<30 {
                    let context = history.context()
                    #expect(actual.resolve(context).values == expected.resolve(context).values, "seed \(seed)")
                }

                // Promoting again at once changes nothing.
                let versions = try await app.call(.get, "/v1/projects/\(target)/remoteConfig:listVersions")
                let again = try await Self.promote(app, into: target)
                #expect(again.value["changed"] == false, "seed \(seed): \(again.text)")
                #expect(
                    try await app.call(.get, "/v1/projects/\(target)/remoteConfig:listVersions").value
                        == versions.value, "seed \(seed)")

                // A hotfix of the target survives a promotion that does not name it.
                let current = try await Self.stored(app, target)
                let sourceNow = try await Self.stored(app, source)
                let key = history.pick(PromotionHistory.keys)
                var hotfixed = current
                hotfixed.version = nil
                history.editParameter(&hotfixed, key, kind: history.int(0...7))
                guard
                    !Promotion.sameParameter(
                        hotfixed.parameter(key), in: hotfixed, current.parameter(key), in: current),
                    (try? PreparedTemplate(hotfixed)) != nil
                else { continue }
                #expect(try await app.publish(target, hotfixed.jsonValue).status == 200, "seed \(seed)")
                var later = history.edited(sourceNow, count: history.int(0...4))
                later.version = nil
                guard
                    Promotion.sameParameter(later.parameter(key), in: later, sourceNow.parameter(key), in: sourceNow)
                else { continue }
                #expect(try await app.publish(source, later.jsonValue).status == 200, "seed \(seed)")
                let third = try await Self.promote(app, into: target)
                // A hotfix whose condition a promoted value now carries differently is a conflict, not a loss.
                guard third.status == 200 else {
                    #expect(third.status == 409, "seed \(seed): \(third.text)")
                    continue
                }
                let status = third.value["parameters"]?.arrayValue?.first { $0["key"] == .string(key) }?["status"]
                #expect(status == "TARGET_CHANGED", "seed \(seed) \(key): \(third.text)")
                let after = try await Self.stored(app, target)
                #expect(
                    Promotion.sameParameter(after.parameter(key), in: after, hotfixed.parameter(key), in: hotfixed),
                    "seed \(seed) \(key)")
                kept += 1
            }
            #expect(kept >= 3, "too few hotfixes were tried: \(kept)")
        }
    }
}
