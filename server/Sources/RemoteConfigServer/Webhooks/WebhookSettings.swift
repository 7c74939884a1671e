import Foundation

/// How deliveries are retried and polled; one value so tests can shrink the schedule without changing it.
public struct WebhookSettings: Sendable {
    /// Whether destinations in loopback, private, link-local, multicast or unspecified ranges are allowed.
    public var allowPrivate = false
    /// The console's public address, for links in Slack messages.
    public var publicURL: String?
    /// Waits after the 1st, 2nd, … failed attempt; then `hourly` until `giveUpAfter`.
    public var retryDelays: [Duration] = [.seconds(10), .seconds(30), .seconds(120), .seconds(600), .seconds(1800)]
    public var hourly: Duration = .seconds(3600)
    /// How long after its event a delivery is retried before it is `FAILED`.
    public var giveUpAfter: Duration = .seconds(86_400)
    /// How often a deliverer with nothing to do looks for due deliveries.
    public var pollInterval: Duration = .seconds(1)
    /// How long a claimed delivery stays with its server: longer than an attempt's timeout.
    public var lease: Duration = .seconds(30)
    /// An attempt's deadline.
    public var timeout: Duration = .seconds(10)
    /// How long delivered and failed deliveries are kept after their last attempt (the deliveries list shows
    /// them), and their bodies (what a receiver may ask about soon after).
    public var keepFinished: Duration = .seconds(30 * 86_400)
    public var keepBodies: Duration = .seconds(7 * 86_400)
    /// How often each server prunes the outbox; also once at start.
    public var pruneInterval: Duration = .seconds(3600)

    public init() {}

    /// The same schedule with every retry wait and the give-up window multiplied by `factor` (tests use a
    /// small factor to see the real schedule in milliseconds).
    public func scaled(by factor: Double) -> WebhookSettings {
        var copy = self
        copy.retryDelays = retryDelays.map { $0 * factor }
        copy.hourly = hourly * factor
        copy.giveUpAfter = giveUpAfter * factor
        return copy
    }

    /// The wait after `attempts` failed attempts.
    func retryDelay(afterAttempts attempts: Int) -> Duration {
        attempts >= 1 && attempts <= retryDelays.count ? retryDelays[attempts - 1] : hourly
    }
}
