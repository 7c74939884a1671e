import Foundation

/// A project holds `WebhookStore.limitPerProject` webhooks already: a new one is refused.
public struct WebhookLimitReached: Error, Equatable {
    public let project: String
    public let limit: Int

    public init(project: String, limit: Int) {
        self.project = project
        self.limit = limit
    }
}
