import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// A Google Play sync tells webhooks what App Store sync does: what it published, and each failure.
@Suite struct GooglePlayWebhookTests {
    @Test func aSyncSendsWhatItPublishedAndEachFailureNamingTheStore() async throws {
        let account = try TestServiceAccount()
        try await WebhookReceiver.run { receiver in
            try await FakeGooglePlay.run { google in
                google.answer(
                    track: FakeGooglePlay.track(releases: [
                        FakeGooglePlay.release("2.4.0", codes: [241], status: "completed")
                    ]))
                try await GooglePlayFixture.shop(google, configure: WebhookFixture.fast) { app, _ in
                    for (events, format) in [
                        (["template.published", "storeSync.failed"], "JSON"), (["storeSync.failed"], "SLACK"),
                    ] {
                        let created = try await app.call(
                            .post, WebhookFixture.collection,
                            body: WebhookRequest(url: receiver.url, events: events, format: format))
                        #expect(created.status == 201, "\(created.text)")
                    }
                    let saved = try await app.call(.put, GooglePlayFixture.path, json: GooglePlayFixture.link(account))
                    #expect(saved.status == 200, "\(saved.text)")
                    #expect(try await app.call(.post, GooglePlayFixture.run).value["result"] == "PUBLISHED")
                    google.fail(.getTrack, .status(403))
                    #expect(try await app.call(.post, GooglePlayFixture.run).value["result"] == "FAILED")

                    let all = try await receiver.waitFor(3)
                    let received = all.filter { $0.value["type"] != nil }
                    #expect(
                        received.map { $0.value["type"]?.stringValue } == ["template.published", "storeSync.failed"])
                    #expect(received.first?.value["data"]?["updateOrigin"] == "STORE_SYNC")
                    let failure = received.last?.value["data"]
                    #expect(failure?["store"] == "google_play" && failure?["packageName"] == "com.example.app")
                    #expect(failure?["track"] == "production" && failure?["consecutiveFailures"] == 1)
                    #expect(failure?["error"]?.stringValue?.contains("has no access to the app") == true)
                    let text = all.compactMap { $0.value["text"]?.stringValue }.first ?? ""
                    #expect(text.hasPrefix("shop-app: Google Play sync failed (1 in a row"), "\(text)")
                }
            }
        }
    }
}
