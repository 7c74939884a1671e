import Foundation
import RemoteConfigAPI
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// Two servers on one database: each Google Play sync happens on exactly one of them.
@Suite struct GooglePlayReplicaTests {
    /// Two applications on one fresh database, both calling `google`, looking for due links every 100 ms.
    static func twoReplicas(
        _ google: FakeGooglePlay,
        _ body: @Sendable @escaping (TestApp.Session, TestApp.Session, String) async throws -> Void
    ) async throws {
        let url = try await TestClusterURL.make()
        let (tokenURL, apiURL) = (google.tokenURL, google.apiURL)
        let configure: @Sendable (inout ServerConfiguration) -> Void = {
            $0.playTokenURL = tokenURL
            $0.playAPIURL = apiURL
            $0.storeSyncPollInterval = .milliseconds(100)
        }
        try await TestApp.run(url: url, configure: configure) { one in
            try await one.createProject("shop-app")
            try await one.publish("shop-app", GooglePlayFixture.template)
            let key = try await one.createKey(role: "client", project: "shop-app").secret
            try await TestApp.run(url: url, configure: configure) { two in
                try await body(one, two, key)
            }
        }
    }

    @Test func anEnabledLinkIsSyncedByOneReplicaAndSyncsAskedOfBothTakeTurns() async throws {
        let account = try TestServiceAccount()
        try await FakeGooglePlay.run { google in
            google.answer(
                track: FakeGooglePlay.track(releases: [
                    FakeGooglePlay.release("2.4.0", codes: [241], status: "completed")
                ]))
            // A slow track: while one replica waits for it, the other looks for due links many times over.
            google.delayTracks(.milliseconds(400))
            try await Self.twoReplicas(google) { one, two, key in
                let saved = try await one.call(
                    .put, GooglePlayFixture.path, json: GooglePlayFixture.link(account, ["enabled": true]))
                #expect(saved.status == 200, "\(saved.text)")
                for app in [one, two] {
                    #expect(
                        try await StoreSyncFixture.eventually {
                            try await GooglePlayFixture.androidEntries(app, key)["current_build_android"] == "241"
                        }, "a replica does not serve the synced release")
                }
                try await Task.sleep(for: .seconds(1))
                #expect(google.trackReads.count == 1, "\(google.trackReads)")
                #expect(try await StoreSyncFixture.versions(one).count == 2)

                // Asked of both at once: one after the other, and only the first publishes.
                google.answer(
                    track: FakeGooglePlay.track(releases: [
                        FakeGooglePlay.release("2.5.0", codes: [250], status: "completed")
                    ]))
                async let first = one.call(.post, GooglePlayFixture.run)
                async let second = two.call(.post, GooglePlayFixture.run)
                let results = [try await first, try await second].map { $0.value["result"]?.stringValue ?? "" }
                #expect(results.sorted() == ["PUBLISHED", "UNCHANGED"], "\(results)")
                #expect(google.mostReadsInFlight == 1, "two syncs of one link ran at the same time")
                #expect(try await StoreSyncFixture.versions(one).count == 3)
                #expect(google.editsDeleted.count == google.editsOpened.count)
            }
        }
    }
}
