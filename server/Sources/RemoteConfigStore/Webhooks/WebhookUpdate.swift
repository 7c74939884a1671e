import Foundation

/// A `PATCH` of a webhook: nil leaves a field as it is.
public struct WebhookUpdate: Sendable, Equatable {
    public var url: String?
    public var events: [String]?
    public var format: String?
    public var description: String?
    public var enabled: Bool?

    public init() {}
}
