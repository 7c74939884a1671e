import Foundation
import RemoteConfigTestHistories
import Testing

@testable import RemoteConfigCore

/// Impact estimates against a simulated fleet whose truth is known: every instance is answered by both
/// templates, and the estimate from the bottom-k sample must land within 3 percentage points of it.
@Suite struct ImpactEstimatorTests {
    static let versions = ["1.0.8", "1.0.9", "1.1.4", "2.0.0", "2.2.1", "2.3.0"]

    /// 200,000 instances: iOS and Android, six versions in uneven shares, a few without a version.
    static let fleet: [FetchContext] = {
        var random = SeededGenerator(seed: 31)
        let weights = [3, 4, 8, 15, 30, 40]
        return (0..<200_000).map { index in
            let platform: Platform = Int.random(in: 0..<10, using: &random) < 6 ? .ios : .android
            var pick = Int.random(in: 0..<weights.reduce(0, +), using: &random)
            var version = versions[0]
            for (position, weight) in weights.enumerated() {
                if pick < weight {
                    version = versions[position]
                    break
                }
                pick -= weight
            }
            return FetchContext(
                appInstanceId: "device-\(index)", platform: platform, appVersion: index % 97 == 0 ? nil : version)
        }
    }()

    static func compile(_ json: String) throws -> CompiledTemplate {
        try CompiledTemplate(RemoteConfigTemplate(json: Array(json.utf8)))
    }

    /// Force update below 2.0.0 on iOS; a checkout on for 20% of everyone.
    static let published = """
        {"conditions": [
          {"name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])"},
          {"name": "checkout_group", "expression": "percent('checkout') <= 20"}],
         "parameters": {
          "require_force_update": {"defaultValue": {"value": "false"},
            "conditionalValues": {"ios_too_old": {"value": "true"}}},
          "new_checkout": {"defaultValue": {"value": "false"},
            "conditionalValues": {"checkout_group": {"value": "true"}}},
          "banner": {"defaultValue": {"useInAppDefault": true}}}}
        """

    /// Force update below 2.3.0 on iOS; the checkout for 50%; a banner for Android.
    static let candidate = """
        {"conditions": [
          {"name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.3.0'])"},
          {"name": "checkout_group", "expression": "percent('checkout') <= 50"},
          {"name": "android", "expression": "device.os == 'android'"}],
         "parameters": {
          "require_force_update": {"defaultValue": {"value": "false"},
            "conditionalValues": {"ios_too_old": {"value": "true"}}},
          "new_checkout": {"defaultValue": {"value": "false"},
            "conditionalValues": {"checkout_group": {"value": "true"}}},
          "banner": {"defaultValue": {"useInAppDefault": true},
            "conditionalValues": {"android": {"value": "Sale"}}}}}
        """

    @Test func anEstimateFromTheSampleIsWithinThreePointsOfTheTruth() throws {
        let estimator = ImpactEstimator(
            published: try Self.compile(Self.published), candidate: try Self.compile(Self.candidate),
            forceUpdateParameter: "require_force_update")
        // The truth: every instance answered by both templates.
        let truth = estimator.estimate(sample: Self.fleet, since: "2026-11-19T00:00:00Z", activeInstances: 0)
        // The sample: the 10,000 instances with the smallest hashes, as the servers keep it.
        let key = SipHashKey(k0: 0x5eed, k1: 0xfee1)
        let sample = Self.fleet.map { (SampleHash.of($0.appInstanceId!, key: key), $0) }.sorted { $0.0 < $1.0 }
            .prefix(10_000).map(\.1)
        let estimate = estimator.estimate(sample: sample, since: "2026-11-19T00:00:00Z", activeInstances: 200_000)

        #expect(truth.sample.instances == 200_000)
        #expect(truth.forceUpdate.margin == 0)  // the whole population: nothing is estimated
        #expect(estimate.sample == .init(instances: 10_000, since: "2026-11-19T00:00:00Z", activeInstances: 200_000))
        func change(_ report: ImpactReport, _ parameter: String) throws -> ImpactReport.Change {
            try #require(report.changes.first { $0.parameter == parameter })
        }
        for parameter in ["require_force_update", "new_checkout", "banner"] {
            let (real, estimated) = (try change(truth, parameter), try change(estimate, parameter))
            #expect(abs(real.share - estimated.share) < 0.03, "\(parameter): \(real.share) vs \(estimated.share)")
            #expect(estimated.margin > 0 && estimated.margin < 0.015)
            #expect(abs(real.share - estimated.share) < 3 * estimated.margin + 0.001)
            #expect(abs(Double(real.instances - estimated.instances)) < 0.03 * 200_000)
        }
        // The percent condition moving from 20% to 50% changes 30% of everyone's checkout.
        #expect(abs(try change(truth, "new_checkout").share - 0.30) < 0.01)
        #expect(try change(truth, "new_checkout").from == "false")
        #expect(try change(truth, "banner").from == nil)
        #expect(try change(truth, "banner").to == "Sale")
        // Newly required: iOS from 2.0.0 to below 2.3.0, i.e. 2.0.0 and 2.2.1 (45% of 60% = 27%).
        #expect(abs(truth.forceUpdate.share - 0.27) < 0.01)
        #expect(abs(truth.forceUpdate.share - estimate.forceUpdate.share) < 0.03)
        #expect(estimate.forceUpdate.noLongerRequired == 0)
        #expect(Set(estimate.forceUpdate.byVersion.map(\.version)) == ["2.0.0", "2.2.1"])
        #expect(Set(estimate.forceUpdate.byPlatform.keys) == ["IOS"])
        let ios = try #require(estimate.forceUpdate.byPlatform["IOS"])
        #expect(abs(ios.share - 0.45) < 0.03)
    }

    @Test func theSummarySaysWhoMustUpdateInWords() throws {
        let estimator = ImpactEstimator(
            published: try Self.compile(Self.published), candidate: try Self.compile(Self.candidate),
            forceUpdateParameter: "require_force_update")
        let fleet = [
            FetchContext(appInstanceId: "a", platform: .ios, appVersion: "2.2.1"),
            FetchContext(appInstanceId: "b", platform: .ios, appVersion: "2.0.0"),
            FetchContext(appInstanceId: "c", platform: .ios, appVersion: "2.2.0"),
            FetchContext(appInstanceId: "d", platform: .ios, appVersion: "2.3.0"),
        ]
        let report = estimator.estimate(sample: fleet, since: "2026-11-19T00:00:00Z", activeInstances: 4_000)
        #expect(report.forceUpdate.newlyRequired == 3_000)
        #expect(
            report.summary.hasPrefix(
                "This change makes 75.0% of active iOS installs, about 3,000, required to update: 2.2.x and 2.0.0."),
            "\(report.summary)")
    }

    @Test func versionsAreListedNewestFirstWithFamiliesFolded() {
        #expect(ImpactSummary.versionList(["1.0.9", "1.1.4", "1.0.8"]) == "1.1.4 and 1.0.x")
        #expect(ImpactSummary.versionList(["3"]) == "3")
        #expect(ImpactSummary.versionList(["(none)", "2.0", "10.1.1"]) == "10.1.1, 2.0 and (none)")
        #expect(ImpactSummary.count(1_234_567) == "1,234,567")
        #expect(ImpactSummary.count(12) == "12")
        #expect(ImpactSummary.percent(0.041) == "4.1%")
        #expect(ImpactSummary.percent(0.0001) == "under 0.1%")
    }

    @Test func thousandsOfVersionsAreFoldedIntoOther() throws {
        let estimator = ImpactEstimator(
            published: try Self.compile(Self.published), candidate: try Self.compile(Self.candidate),
            forceUpdateParameter: "require_force_update")
        let fleet = (0..<2_000).map {
            FetchContext(appInstanceId: "i\($0)", platform: .android, appVersion: "9.\($0)")
        }
        let report = estimator.estimate(sample: fleet, since: "2026-11-19T00:00:00Z", activeInstances: 2_000)
        let banner = try #require(report.changes.first { $0.parameter == "banner" })
        #expect(banner.byVersion.count == ImpactEstimator.versionLimit + 1)
        #expect(banner.byVersion.last == .init(platform: "ANDROID", version: "(other)", instances: 1_950))
        #expect(banner.byVersion.reduce(0) { $0 + $1.instances } == 2_000)
    }

    @Test func anEmptySampleSaysSoAndChangesNothing() throws {
        let estimator = ImpactEstimator(
            published: nil, candidate: try Self.compile(Self.candidate), forceUpdateParameter: "require_force_update")
        let report = estimator.estimate(sample: [], since: "2026-11-19T00:00:00Z", activeInstances: 0)
        #expect(report.changes.isEmpty)
        #expect(report.sample.instances == 0)
        #expect(report.summary.contains("the impact is unknown"))
    }

    @Test func nullAnswersAreWrittenAsNull() throws {
        let change = ImpactReport.Change(
            parameter: "banner", from: nil, to: "Sale", instances: 1, share: 0.5, margin: 0.1, byPlatform: [:],
            byVersion: [])
        let text = String(decoding: try JSONEncoder().encode(change), as: UTF8.self)
        #expect(text.contains("\"from\":null"))
        #expect(try JSONDecoder().decode(ImpactReport.Change.self, from: Data(text.utf8)) == change)
    }
}
