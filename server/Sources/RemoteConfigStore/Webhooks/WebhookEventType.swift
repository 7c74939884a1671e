/// The name of an event a webhook receives (`template.published`, …): a delivery's `type`, and what a
/// subscription lists. A struct over its text rather than a closed enum, so a delivery that a newer server
/// stored still reads back.
public struct WebhookEventType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let templatePublished = Self(rawValue: "template.published")
    public static let changeRequestOpened = Self(rawValue: "changeRequest.opened")
    public static let changeRequestApproved = Self(rawValue: "changeRequest.approved")
    public static let changeRequestRejected = Self(rawValue: "changeRequest.rejected")
    public static let changeRequestCancelled = Self(rawValue: "changeRequest.cancelled")
    public static let rolloutStarted = Self(rawValue: "rollout.started")
    public static let rolloutHalted = Self(rawValue: "rollout.halted")
    public static let rolloutCompleted = Self(rawValue: "rollout.completed")
    public static let storeSyncFailed = Self(rawValue: "storeSync.failed")
    /// A test message (`:ping`), sent to one webhook whatever it subscribes to.
    public static let ping = Self(rawValue: "ping")

    /// Every event a webhook may subscribe to, in the order the contract lists them.
    public static let all: [WebhookEventType] = [
        .templatePublished, .changeRequestOpened, .changeRequestApproved, .changeRequestRejected,
        .changeRequestCancelled, .rolloutStarted, .rolloutHalted, .rolloutCompleted, .storeSyncFailed, .ping,
    ]

    /// The subscription to every event.
    public static let everyEvent = "*"

    /// The noun before the dot (`changeRequest`, `rollout`, …): what the console tab of a link is chosen by.
    public var family: Substring { rawValue.prefix { $0 != "." } }

    public var description: String { rawValue }
}
