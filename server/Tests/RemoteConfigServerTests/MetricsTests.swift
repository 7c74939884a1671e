import Foundation
import HTTPTypes
import RemoteConfigTestSupport
import Testing

/// `/metrics` in Prometheus format, and its counters move with what the server does.
@Suite struct MetricsTests {
    /// The value of the sample whose line starts with `prefix` (name and labels), or 0.
    static func value(_ text: String, _ prefix: String) -> Double {
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            if let number = line.split(separator: " ").last.flatMap({ Double($0) }) { return number }
        }
        return 0
    }

    @Test func countersMoveWithRequestsFetchesAndPublishes() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            let before = try await app.call(.get, "/metrics", token: nil)
            #expect(before.status == 200)
            #expect(before.headers[.contentType]?.hasPrefix("text/plain") == true)

            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let first = try await ClientCalls.fetch(app, key: client.secret, ClientCalls.iosBody("1.0.0"))
            _ = try await ClientCalls.fetch(
                app, key: client.secret, ClientCalls.iosBody("1.0.0"), ifNoneMatch: first.headers[.eTag])
            _ = try await app.call(.get, "/v1/nothing", token: nil)

            let after = try await app.call(.get, "/metrics", token: nil).text
            #expect(after.contains("# TYPE rc_http_requests_total counter"))
            #expect(Self.value(after, #"rc_fetches_total{state="UPDATE"}"#) == 2)
            #expect(Self.value(after, "rc_fetch_not_modified_total") == 1)
            #expect(Self.value(after, #"rc_publishes_total{update_type="FORCED_UPDATE"}"#) == 1)
            #expect(Self.value(after, "rc_cache_reloads_total") >= 1)
            #expect(Self.value(after, "rc_stream_connections") == 0)
            #expect(
                Self.value(after, #"rc_http_requests_total{route="/v1/projects",method="POST",status="201"}"#) == 1)
            #expect(Self.value(after, #"rc_http_requests_total{route="NotFound",method="GET",status="404"}"#) == 1)
            #expect(
                after.contains(#"rc_http_request_duration_seconds_bucket{route="/v1/projects/{p}/remoteConfig:fetch""#))
        }
    }

    @Test func memoryHeldWithinTheBudgetsIsReported() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let fetch = try await ClientCalls.fetch(app, key: client.secret, ClientCalls.iosBody("1.0.0"))
            #expect(fetch.status == 200)
            let metrics = try await app.call(.get, "/metrics", token: nil).text
            // The answer just made is remembered, and its caller's context waits in the sample for the flush.
            #expect(Self.value(metrics, #"rc_memory_held_bytes{kind="answers"}"#) > 0)
            #expect(Self.value(metrics, #"rc_memory_held_bytes{kind="insights_sample"}"#) > 0)
            #expect(metrics.contains("rc_insights_samples_dropped_total 0"))
        }
    }
}
