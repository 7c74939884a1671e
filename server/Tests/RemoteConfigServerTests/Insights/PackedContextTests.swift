import Foundation
import RemoteConfigCore
import Testing

@testable import RemoteConfigServer

/// The recorder holds sampled contexts packed until a flush: what it flushes is what it was given.
@Suite struct PackedContextTests {
    @Test func aPackedContextGivesBackWhatTheSampleKeeps() {
        let now = Date(timeIntervalSince1970: 1_790_000_000.25)
        let contexts = [
            FetchContext(
                appInstanceId: "f0e1d2c3b4a5968778695a4b3c2d1e0f", appId: "com.example.shop", platform: .ios,
                appVersion: "2.3.1", appBuild: "210", countryCode: "JP", languageCode: "ja-JP",
                customSignals: ["tier": "gold", "visits": 12],
                firstOpenTime: Date(timeIntervalSince1970: 1_700_000_000),
                now: now),
            FetchContext(appInstanceId: "only-an-id", now: now),
            FetchContext(
                appInstanceId: "", appId: "ünïcødé ✓ app", platform: .web, languageCode: "zh_Hant_TW", now: now),
            FetchContext(
                appInstanceId: String(repeating: "é", count: 300), appId: String(repeating: "a", count: 256),
                platform: .android, now: now),
        ]
        for context in contexts {
            let packed = PackedContext(context, now: now)
            #expect(packed.now == now)
            #expect(SampledContext(packed.context) == SampledContext(context))
            #expect(packed.context.appInstanceId != nil)
        }
        // Not sent stays not sent: an absent field is not an empty one.
        let sparse = PackedContext(FetchContext(appInstanceId: "a", appVersion: ""), now: now).context
        #expect(sparse.appId == nil && sparse.appVersion == "" && sparse.platform == nil && sparse.countryCode == nil)
    }
}
