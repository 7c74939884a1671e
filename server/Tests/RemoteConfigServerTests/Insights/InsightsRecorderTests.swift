import Foundation
import RemoteConfigCore
import RemoteConfigStore
import Testing

@testable import RemoteConfigServer

/// The recorder keeps each thread's counts per project and hour, with the last project and hour at hand: what
/// it hands the flush is still every call in its project and hour.
@Suite struct InsightsRecorderTests {
    static let hour = 490_000

    static func context(_ instance: String?, _ version: String) -> FetchContext {
        FetchContext(appInstanceId: instance, platform: .ios, appVersion: version)
    }

    static func at(_ hour: Int, minute: Double = 30) -> Date {
        Date(timeIntervalSince1970: Double(hour) * 3600 + minute * 60)
    }

    @Test func callsCountInTheirProjectAndHourWhateverTheOrder() {
        let recorder = InsightsRecorder(enabled: true, sampleSize: 100, sampleKey: SipHashKey(k0: 1, k1: 2))
        // Projects and hours interleaved, an hour left and come back to (a clock set back), then the next hour.
        let calls: [(String, Int, String?)] = [
            ("shop", Self.hour, "a"), ("news", Self.hour, nil), ("shop", Self.hour, "b"), ("shop", Self.hour + 1, "c"),
            ("shop", Self.hour, "d"), ("news", Self.hour + 1, nil), ("shop", Self.hour + 1, "a"),
        ]
        for (project, hour, instance) in calls {
            recorder.record(
                project: project, context: Self.context(instance, "1.0.0"), now: Self.at(hour), tally: .empty)
        }
        let batch = recorder.takenBatch()
        func answers(_ project: String, _ hour: Int) -> Int? {
            batch.counts[InsightsBatch.Key(project: project, hour: hour)]?.versions.values.reduce(0) { $0 + $1.answers }
        }
        #expect(answers("shop", Self.hour) == 3)
        #expect(answers("shop", Self.hour + 1) == 2)
        #expect(answers("news", Self.hour) == 1)
        #expect(answers("news", Self.hour + 1) == 1)
        #expect(batch.counts.count == 4)
        let shop = batch.counts[InsightsBatch.Key(project: "shop", hour: Self.hour)]?.versions.values.first
        #expect(shop?.instances.count == 3)
        // Only a project whose callers sent an instance id has a sample.
        #expect(batch.samples.keys.sorted() == ["shop"])
        #expect(batch.samples["shop"]?.entries.count == 4)

        // Nothing since: no counts, and no sample rows to write.
        let again = recorder.takenBatch()
        #expect(again.counts.isEmpty)
        #expect(again.isEmpty)
        // Counting goes on after a flush, in the hour it was in.
        recorder.record(
            project: "shop", context: Self.context("e", "1.0.0"), now: Self.at(Self.hour + 1), tally: .empty)
        let third = recorder.takenBatch()
        #expect(third.counts.keys.map(\.hour) == [Self.hour + 1])
        #expect(third.samples["shop"]?.entries.count == 1)
    }

    @Test func offCountsNothing() {
        let recorder = InsightsRecorder(enabled: false, sampleSize: 100, sampleKey: SipHashKey(k0: 1, k1: 2))
        recorder.record(project: "shop", context: Self.context("a", "1.0.0"), now: Self.at(Self.hour), tally: .empty)
        #expect(recorder.takenBatch().projects.isEmpty)
    }
}
