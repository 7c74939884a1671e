import Foundation

/// What creating a webhook records.
public struct WebhookDraft: Sendable, Equatable {
    public var url: String
    public var events: [String]
    public var format: String
    public var description: String

    public init(url: String, events: [String], format: String, description: String) {
        self.url = url
        self.events = events
        self.format = format
        self.description = description
    }
}
