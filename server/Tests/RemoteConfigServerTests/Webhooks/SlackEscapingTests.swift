import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// A Slack message speaks only in our name: text that editors, keys and stores wrote reaches Slack escaped
/// (`&`, `<`, `>`), so it can neither ping a channel nor dress a link up, and a section stays within Slack's limit.
@Suite struct SlackEscapingTests {
    /// What Slack would act on: a broadcast, or a link with a label of someone else's choosing.
    static let hostile = ["<!channel>", "<!here>", "<!everyone>", "<https://evil.example|label>"]

    static func configure(_ configuration: inout ServerConfiguration) {
        WebhookFixture.fast(&configuration)
        configuration.webhooks.publicURL = "https://rc.example.com"
    }

    /// Every text of a Slack body: `text` and each block's texts.
    static func texts(_ message: JSONValue) -> [String] {
        var texts = [message["text"]?.stringValue ?? ""]
        for block in message["blocks"]?.arrayValue ?? [] {
            if let text = block["text"]?["text"]?.stringValue { texts.append(text) }
            for element in block["elements"]?.arrayValue ?? [] {
                if let text = element["text"]?.stringValue { texts.append(text) }
            }
        }
        return texts
    }

    static func expectNothingSlackActsOn(_ message: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) {
        for text in texts(message) {
            for hostile in hostile {
                #expect(!text.contains(hostile), "\(text)", sourceLocation: sourceLocation)
            }
            // The only link is ours: the console's.
            for match in text.matches(of: /<([^>]*)>/) {
                #expect(
                    match.1.hasPrefix("https://rc.example.com/console"), "\(text)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test func descriptionsValuesConditionNamesAndKeyNamesReachSlackEscaped() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: Self.configure) { app in
                _ = try await WebhookFixture.setUp(
                    app, url: receiver.url, events: ["template.published"], format: "SLACK")
                let bot = try await app.createKey(role: "editor", project: "shop-app", name: "<!everyone> & co")
                for conditional in ["<!channel>", "<!here> now"] {
                    let template: JSONValue = [
                        "conditions": [["name": "<!here>", "expression": "device.os == 'ios'"]],
                        "parameters": [
                            "welcome": [
                                "defaultValue": ["value": "<https://evil.example|Update now>"],
                                "conditionalValues": ["<!here>": ["value": .string(conditional)]],
                                "valueType": "STRING",
                            ]
                        ],
                        "version": ["description": "<!channel> release & <https://evil.example|notes>"],
                    ]
                    let reply = try await app.call(
                        .put, "/v1/projects/shop-app/remoteConfig", token: bot.secret, json: template,
                        headers: [.ifMatch: "*"])
                    #expect(reply.status == 200, "\(reply.text)")
                }
                let received = try await receiver.waitFor(2)
                try #require(received.count == 2)
                let changed = received[1].value
                print("Slack body as delivered: \(String(decoding: received[1].body, as: UTF8.self))")
                Self.expectNothingSlackActsOn(changed)
                let changedText = changed["text"]?.stringValue ?? ""
                #expect(
                    changedText.contains("welcome: &lt;!channel&gt; → &lt;!here&gt; now when &lt;!here&gt;"),
                    "\(changedText)")
                let message = try #require(received.first?.value)
                Self.expectNothingSlackActsOn(message)
                let text = message["text"]?.stringValue ?? ""
                // Said in words all the same, escaped as Slack documents.
                #expect(text.contains("published by &lt;!everyone&gt; &amp; co"), "\(text)")
                #expect(text.contains("&lt;!channel&gt; release &amp; &lt;https://evil.example|notes&gt;"), "\(text)")
                #expect(text.contains("welcome added: &lt;https://evil.example|Update now&gt;"), "\(text)")
                #expect(text.contains("condition &lt;!here&gt; added"), "\(text)")
            }
        }
    }

    @Test func aLargeChangeStaysWithinASectionAndSaysHowManyMoreWithTheConsoleLink() async throws {
        try await WebhookReceiver.run { receiver in
            try await TestApp.run(url: try await TestClusterURL.make(), configure: Self.configure) { app in
                _ = try await WebhookFixture.setUp(
                    app, url: receiver.url, events: ["template.published"], format: "SLACK")
                var parameters = JSONObject()
                for index in 0..<300 {
                    parameters["parameter_\(index)"] = [
                        "defaultValue": ["value": .string(String(repeating: "<&>", count: 30))], "valueType": "STRING",
                    ]
                }
                #expect(try await app.publish("shop-app", ["parameters": .object(parameters)]).status == 200)
                let received = try await receiver.waitFor(1)
                let message = try #require(received.first?.value)
                Self.expectNothingSlackActsOn(message)
                let blocks = message["blocks"]?.arrayValue ?? []
                for block in blocks where block["type"] == "section" {
                    let text = block["text"]?["text"]?.stringValue ?? ""
                    #expect(text.count <= 3000, "a section of \(text.count) characters")
                }
                let section = blocks.first?["text"]?["text"]?.stringValue ?? ""
                let more = try #require(section.firstMatch(of: /and (\d+) more changes/), "\(section.suffix(300))")
                let shown = section.components(separatedBy: "\n• ").count - 1
                #expect(shown + (Int(more.1) ?? 0) == 300, "\(shown) shown, \(more.1) more")
                #expect(section.contains("<https://rc.example.com/console#/projects/shop-app/history|"), "\(section)")
                print("End of the section (\(section.utf16.count) characters): …\(section.suffix(300))")
            }
        }
    }

    /// A store is a stranger too: what it answers reaches Slack, in `storeSync.failed`, escaped.
    @Test func aHostileStoreAnswerInStoreSyncFailedReachesSlackEscaped() async throws {
        try await WebhookReceiver.run { receiver in
            try await FakeAppStore.run { store in
                try await StoreSyncFixture.shop(store, configure: Self.configure) { app, _ in
                    let slack = try await app.call(
                        .post, WebhookFixture.collection,
                        body: WebhookRequest(url: receiver.url, events: ["storeSync.failed"], format: "SLACK"))
                    #expect(slack.status == 201, "\(slack.text)")
                    #expect(
                        try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link()).status == 200)
                    store.answer(.listing(version: "<!channel> 9.9 <https://evil.example|update>"))
                    let failed = try await app.call(.post, StoreSyncFixture.run)
                    #expect(try failed.decode(RemoteConfigAPI.StoreLink.self).result == "FAILED", "\(failed.text)")
                    let received = try await receiver.waitFor(1)
                    let message = try #require(received.first?.value)
                    Self.expectNothingSlackActsOn(message)
                    let text = message["text"]?.stringValue ?? ""
                    #expect(text.contains("&lt;!channel&gt; 9.9"), "\(text)")
                }
            }
        }
    }
}
