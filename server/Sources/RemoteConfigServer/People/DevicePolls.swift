import Crypto
import Foundation
import NIOConcurrencyHelpers

/// When each device sign-in this server started was last polled, so that polling faster than its interval is
/// answered `SLOW_DOWN` (RFC 8628, 3.5) whatever the provider does. Bounded: sign-ins are forgotten when they
/// expire, and at most `capacity` are kept (the oldest go first).
final class DevicePolls: Sendable {
    private struct Entry {
        var interval: Duration
        var lastPoll: ContinuousClock.Instant?
        var expires: ContinuousClock.Instant
    }

    private let entries = NIOLockedValueBox<[Data: Entry]>([:])
    let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// Records a sign-in just started.
    func started(_ deviceCode: String, interval: Int, expiresIn: Int) {
        let now = ContinuousClock.now
        entries.withLockedValue { entries in
            entries = entries.filter { $0.value.expires > now }
            if entries.count >= capacity, let oldest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                entries[oldest.key] = nil
            }
            entries[Self.key(deviceCode)] = Entry(
                interval: .seconds(max(1, interval)), lastPoll: nil, expires: now + .seconds(max(1, expiresIn)))
        }
    }

    /// Whether a poll now comes sooner than the interval after the last one (a sign-in another server started
    /// is not known here, and never too soon).
    func tooSoon(_ deviceCode: String) -> Bool {
        let now = ContinuousClock.now
        return entries.withLockedValue { entries in
            let key = Self.key(deviceCode)
            guard var entry = entries[key] else { return false }
            defer { entries[key] = entry }
            if let last = entry.lastPoll, last.duration(to: now) < entry.interval {
                // RFC 8628: each slow_down adds five seconds to the interval.
                entry.interval += .seconds(5)
                entry.lastPoll = now
                return true
            }
            entry.lastPoll = now
            return false
        }
    }

    private static func key(_ deviceCode: String) -> Data { Data(SHA256.hash(data: Data(deviceCode.utf8))) }
}
