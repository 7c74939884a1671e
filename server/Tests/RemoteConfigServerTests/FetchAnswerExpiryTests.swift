import Foundation
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// Answers built once per caller signature are never stale: a publish, or a `dateTime` boundary that passes,
/// changes what the same request gets.
@Suite struct FetchAnswerExpiryTests {
    static func rfc3339(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    @Test func anAnswerChangesAtTheTemplatesNextTimeBoundary() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            let body: JSONValue = ["appInstanceId": "i-1", "platform": "IOS"]
            // The first fetch must land before the boundary; on a loaded machine the set-up can take longer
            // than the first margin, so the margin grows until a fetch lands before it.
            var template: JSONObject = [:]
            var checked = false
            for margin in [2.0, 6.0, 15.0] {
                let boundary = Date().addingTimeInterval(margin)
                template = [
                    "conditions": [
                        ["name": "launched", "expression": "dateTime >= dateTime('\(Self.rfc3339(boundary))')"]
                    ],
                    "parameters": [
                        "banner": [
                            "defaultValue": ["value": "soon"], "conditionalValues": ["launched": ["value": "live"]],
                        ]
                    ],
                ]
                #expect(try await app.publish("shop-app", .object(template)).status == 200)
                let before = try await ClientCalls.fetch(app, key: client.secret, body)
                guard Date() < boundary else { continue }
                #expect(before.value["entries"]?["banner"] == "soon")
                try await Task.sleep(until: .now + .seconds(boundary.timeIntervalSinceNow + 0.2))
                let after = try await ClientCalls.fetch(app, key: client.secret, body)
                #expect(after.value["entries"]?["banner"] == "live", "an answer outlived the boundary")
                checked = true
                break
            }
            #expect(checked, "no fetch landed before a time boundary: the expiry was not checked")

            // A publish starts afresh: the same body gets the new answer.
            var next = template
            next["parameters"] = ["banner": ["defaultValue": ["value": "gone"]]]
            #expect(try await app.publish("shop-app", .object(next)).status == 200)
            let republished = try await ClientCalls.fetch(app, key: client.secret, body)
            #expect(republished.value["entries"]?["banner"] == "gone")
        }
    }
}
