import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// Answers remembered by request body: the same bytes get the same answer without being parsed again, but
/// never a stale one (a publish, or a `dateTime` boundary that passes, changes it).
@Suite struct FetchMemoTests {
    static func rfc3339(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }

    @Test func aRememberedAnswerLastsUntilTheTemplatesNextTimeBoundary() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            let body: [String: Any] = ["appInstanceId": "i-1", "platform": "IOS"]
            // The answer must be remembered before the boundary; on a loaded machine the set-up can take longer
            // than the first margin, so the margin grows until a fetch lands before it.
            var template: [String: Any] = [:]
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
                #expect(try await app.publish("shop-app", template).status == 200)
                let before = try await ClientCalls.fetch(app, key: client.secret, body)
                guard Date() < boundary else { continue }
                #expect((before.json["entries"] as? [String: String])?["banner"] == "soon")
                try await Task.sleep(until: .now + .seconds(boundary.timeIntervalSinceNow + 0.2))
                let after = try await ClientCalls.fetch(app, key: client.secret, body)
                #expect(
                    (after.json["entries"] as? [String: String])?["banner"] == "live",
                    "a remembered answer outlived the boundary")
                checked = true
                break
            }
            #expect(checked, "no fetch landed before a time boundary: the expiry was not checked")

            // A publish starts afresh: the same body gets the new answer.
            var next = template
            next["parameters"] = ["banner": ["defaultValue": ["value": "gone"]]]
            #expect(try await app.publish("shop-app", next).status == 200)
            let republished = try await ClientCalls.fetch(app, key: client.secret, body)
            #expect((republished.json["entries"] as? [String: String])?["banner"] == "gone")
        }
    }

    @Test func onlyTheSameBytesAreRemembered() throws {
        let template = try RemoteConfigTemplate(
            json: Array(#"{"parameters": {"p": {"defaultValue": {"value": "1"}}}}"#.utf8))
        let answers = FetchAnswers(try CompiledTemplate(template))
        let now = Date()
        let body = ByteBuffer(string: #"{"appInstanceId":"a"}"#)
        #expect(answers.rememberedAnswer(body: body, now: now) == nil)
        let answer = answers.answer(for: FetchContext(appInstanceId: "a", now: now))
        answers.remember(body: body, answer: answer, now: now)
        // Equal bytes in another buffer (a later request on another connection) find it; other bytes do not.
        #expect(
            answers.rememberedAnswer(body: ByteBuffer(string: #"{"appInstanceId":"a"}"#), now: now)?.etag == answer.etag
        )
        #expect(answers.rememberedAnswer(body: ByteBuffer(string: #"{"appInstanceId": "a"}"#), now: now) == nil)
        let large = ByteBuffer(repeating: UInt8(ascii: " "), count: FetchAnswers.bodyLimit + 1)
        answers.remember(body: large, answer: answer, now: now)
        #expect(answers.rememberedAnswer(body: large, now: now) == nil)
    }
}
