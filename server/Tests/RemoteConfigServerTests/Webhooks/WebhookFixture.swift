import Crypto
import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigStore
import RemoteConfigTestSupport

/// What the webhook tests share: a server allowed to reach loopback with a fast retry schedule, a project,
/// and an independent check of signatures.
enum WebhookFixture {
    static let project = "shop-app"
    static let collection = "/v1/projects/shop-app/webhooks"

    /// Loopback and private destinations allowed (the routes tests register URLs they never reach).
    static func allowPrivate(_ configuration: inout ServerConfiguration) {
        configuration.webhooks.allowPrivate = true
    }

    /// The real schedule, 100 times faster (10 s → 100 ms), polled often.
    static func fast(_ configuration: inout ServerConfiguration) {
        configuration.webhooks.allowPrivate = true
        configuration.webhooks = configuration.webhooks.scaled(by: 0.01)
        configuration.webhooks.pollInterval = .milliseconds(50)
    }

    /// A template whose `require_force_update` default is `value`.
    static func template(_ value: Bool, when condition: Bool = false) -> JSONValue {
        let parameter: JSONValue =
            condition
            ? [
                "defaultValue": ["value": "false"], "valueType": "BOOLEAN",
                "conditionalValues": ["ios_too_old": ["value": .string(String(value))]],
            ]
            : ["defaultValue": ["value": .string(String(value))], "valueType": "BOOLEAN"]
        return [
            "conditions": [["name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])"]],
            "parameters": ["require_force_update": parameter],
        ]
    }

    /// Creates the project and a webhook to `url`; returns the webhook's id and secret.
    static func setUp(
        _ app: TestApp.Session, url: String, events: [String] = ["*"], format: String = "JSON"
    ) async throws -> (id: String, secret: String) {
        try await app.createProject(project)
        let created = try await app.admin.createWebhook(
            project, WebhookRequest(url: url, events: events, format: format, description: "CI"))
        return (created.id, created.secret ?? "")
    }

    /// The `v1=` values of a signature header.
    static func signatures(_ received: WebhookReceiver.Received) -> [String] {
        (received.headers["RC-Webhook-Signature"] ?? "").split(separator: " ").compactMap { part in
            part.hasPrefix("v1=") ? String(part.dropFirst(3)) : nil
        }
    }

    /// HMAC-SHA256(secret, timestamp + "." + body) in lowercase hex, as a receiver computes it.
    static func expectedSignature(_ received: WebhookReceiver.Received, secret: String) -> String {
        let timestamp = received.headers["RC-Webhook-Timestamp"] ?? ""
        var message = Data("\(timestamp).".utf8)
        message.append(received.body)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8)))
        return code.map { String(format: "%02x", $0) }.joined()
    }

    /// Waits until the webhook's deliveries satisfy `done` (or `limit` passes) and returns them.
    static func deliveries(
        _ app: TestApp.Session, _ id: String, within limit: Duration = .seconds(20),
        until done: ([RemoteConfigAPI.WebhookDelivery]) -> Bool = { _ in true }
    ) async throws -> [RemoteConfigAPI.WebhookDelivery] {
        let start = ContinuousClock.now
        while true {
            let deliveries = try await app.admin.webhookDeliveries(project, id).deliveries
            if done(deliveries) || ContinuousClock.now - start > limit { return deliveries }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
