import Foundation
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// A sampled context costs a bounded number of bytes however much an app sends: an app sending 100 custom
/// signals of the largest size a fetch accepts made each sampled context about 51 KB, and a full sample half a
/// gigabyte. The signals the published conditions read are kept first.
@Suite struct SampledContextBudgetTests {
    /// The largest custom signals a fetch body accepts: 100 of them, names of 250 characters, values of 500.
    static var largest: [String: SignalValue] {
        var signals: [String: SignalValue] = [:]
        for index in 0..<99 {
            signals[String(format: "s%03d", index) + String(repeating: "k", count: 246)] =
                .string(String(repeating: "v", count: 500))
        }
        signals["zz_plan"] = "pro"
        return signals
    }

    @Test func aContextOfTheLargestSignalsIsCutToItsBudgetKeepingWhatConditionsRead() throws {
        let now = Date()
        let context = FetchContext(appInstanceId: "i-1", platform: .ios, customSignals: Self.largest, now: now)
        let packed = PackedContext(context, now: now, reading: ["zz_plan"])
        #expect(packed.context.customSignals["zz_plan"] == "pro")
        let stored = try #require(SampledContext(packed.context))
        let json = try JSONEncoder().encode(stored)
        #expect(json.count < 3 * 1024, "\(json.count) bytes")
        #expect(packed.bytes < 3 * 1024, "\(packed.bytes) bytes held")
        // What fits is kept whole, and the same by the packed and the stored form.
        let small: [String: SignalValue] = ["plan": "pro", "visits": 12]
        #expect(SampledContext.kept(small) == small)
        #expect(SampledContext.kept(Self.largest, reading: ["zz_plan"]) == packed.context.customSignals)
    }

    @Test func aFetchOfTheLargestSignalsStoresABoundedContext() async throws {
        let template: JSONValue = [
            "conditions": [["name": "pro", "expression": "app.customSignal['zz_plan'] == 'pro'"]],
            "parameters": [
                "banner": [
                    "defaultValue": ["value": "off"], "conditionalValues": ["pro": ["value": "on"]],
                    "valueType": "STRING",
                ]
            ],
        ]
        try await TestApp.run(url: try await TestClusterURL.make()) { app in
            try await app.createProject("shop-app")
            #expect(try await app.publish("shop-app", template).status == 200)
            let key = try await app.createKey(role: "client", project: "shop-app").secret
            var signals: JSONObject = [:]
            for (name, value) in Self.largest { signals[name] = .string(value.text) }
            let body: JSONValue = .object(
                ["appInstanceId": "i-1", "platform": "IOS", "customSignals": .object(signals)])
            #expect(try await ClientCalls.fetch(app, key: key, body).status == 200)
            try await app.environment.flushInsights()
            let stored = try await app.database.run { client in
                var rows: [(Int, String)] = []
                for try await row in try await client.query(
                    "SELECT octet_length(context::text), context::text FROM insight_samples"
                ).decode((Int, String).self) { rows.append(row) }
                return rows
            }
            #expect(stored.count == 1)
            #expect((stored.first?.0 ?? .max) < 3 * 1024, "\(stored.first?.0 ?? 0) bytes stored")
            #expect(stored.first?.1.contains("zz_plan") == true, "the signal a condition reads is kept")
        }
    }
}
