import Foundation
import RemoteConfigCore
import RemoteConfigStore
import Testing

@testable import RemoteConfigServer

/// The samples every thread holds between flushes share one byte budget: a fleet of new devices across many
/// projects, each one a candidate until its project's stored sample is full, held two samples per project per
/// thread before, and a server with 200 projects grew by gigabytes.
@Suite struct InsightsSampleBudgetTests {
    static let now = Date(timeIntervalSince1970: 490_000 * 3600)

    static func device(_ index: Int) -> FetchContext {
        FetchContext(
            appInstanceId: "device-\(index)-0f3a9c1e7b2d4", appId: "com.example.shop", platform: .ios,
            appVersion: "1.\(index % 10).0", countryCode: "US", languageCode: "en-US")
    }

    @Test func newDevicesAcrossProjectsStayWithinTheSamplesBudget() {
        let budget = ByteBudget(limit: 64 * 1024)
        let recorder = InsightsRecorder(
            enabled: true, sampleSize: 10_000, sampleKey: SipHashKey(k0: 1, k1: 2), sampleBudget: budget)
        for index in 0..<5_000 {
            recorder.record(
                project: "tenant-\(index % 50)", context: Self.device(index), now: Self.now, tally: .empty)
            #expect(budget.bytes <= budget.limit)
        }
        let batch = recorder.takenBatch()
        let sampled = batch.samples.values.reduce(0) { $0 + $1.entries.count }
        // 5,000 contexts of about 250 bytes do not fit in 64 KB: some are sampled, not all.
        #expect(sampled > 100)
        #expect(sampled < 5_000)
        // Every answer is counted all the same.
        let answers = batch.counts.values.reduce(0) { total, counts in
            total + counts.versions.values.reduce(0) { $0 + $1.answers }
        }
        #expect(answers == 5_000)
        // What the flush took is the budget's again, and sampling goes on.
        #expect(budget.bytes == 0)
        recorder.record(project: "tenant-0", context: Self.device(5_000), now: Self.now, tally: .empty)
        #expect(recorder.takenBatch().samples["tenant-0"]?.entries.count == 1)
        #expect(budget.bytes == 0)
    }

    @Test func aSampleCutToItsSizeGivesItsBytesBack() {
        let budget = ByteBudget(limit: 1 << 20)
        let recorder = InsightsRecorder(
            enabled: true, sampleSize: 100, sampleKey: SipHashKey(k0: 3, k1: 4), sampleBudget: budget)
        for index in 0..<1_999 {
            recorder.record(project: "shop", context: Self.device(index), now: Self.now, tally: .empty)
        }
        // A sample of 100 holds at most 200 contexts before it cuts itself back to 100.
        #expect(budget.bytes < 200 * 400)
        #expect(budget.bytes > 100 * 100)
        recorder.adopt(["shop": .min])
        // A stored sample whose bound is below every rank: nothing held can enter it, and nothing is held.
        #expect(budget.bytes == 0)
        #expect(recorder.takenBatch().samples["shop"]?.entries.isEmpty ?? true)
    }
}
