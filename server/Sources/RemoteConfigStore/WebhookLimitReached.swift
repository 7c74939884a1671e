import Foundation

/// A project holds `WebhookStore.limitPerProject` webhooks already: a new one is refused.
public struct WebhookLimitReached: Error, Equatable {
    public let limit: Int
}
