import Foundation
import HTTPTypes
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// The README's force-update example, end to end through publish and fetch.
@Suite struct ForceUpdateTests {
    @Test func appsTooOldOrBrokenMustUpdate() async throws {
        let body = TemplateFixtures.readmeForceUpdateValue.jsonBytes()
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            let published = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig", raw: .init(bytes: body), headers: [.ifMatch: "*"])
            #expect(published.status == 200)
            let cases: [(platform: String, version: String, forced: String)] = [
                ("IOS", "1.0.0", "true"),  // too old
                ("IOS", "1.1.4", "true"),  // too old, and the broken release
                ("IOS", "1.9.9", "true"),  // too old
                ("IOS", "2.0.0", "false"),  // merely behind 2.3.0: a dismissable "update available"
                ("IOS", "2.1", "false"),  // 2.1 is 2.1.0
                ("ANDROID", "1.0.0", "false"),  // the iOS rule does not apply
                ("ANDROID", "1.1.4", "true"),  // the broken release, on every platform
            ]
            for (platform, version, forced) in cases {
                let reply = try await ClientCalls.fetch(
                    app, key: client.secret,
                    ["appInstanceId": "i", "platform": .string(platform), "appVersion": .string(version)])
                let entries = reply.value["entries"]
                #expect(entries?["require_force_update"] == .string(forced), "\(platform) \(version)")
                #expect(entries?["current_version"] == "2.3.0")
                #expect(entries?["app_store_url"] == "https://apps.apple.com/app/id123")
            }
        }
    }
}
