import NIOConcurrencyHelpers
import RemoteConfigCore

/// A per-client-key token bucket for fetch: `rate` requests per second, bursts of up to `rate`.
///
/// Off unless configured (`--fetch-rate-limit` / `RC_FETCH_RATE_LIMIT`): apps behind one key share it,
/// so the right number depends on the install base.
final class FetchRateLimiter: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    let rate: Double
    private let buckets = NIOLockedValueBox<[String: Bucket]>([:])

    init(rate: Double) {
        self.rate = rate
    }

    /// nil when the request may go ahead, else the seconds to wait before the next one would.
    func admit(key: String, now: ContinuousClock.Instant = .now) -> Int? {
        buckets.withLockedValue { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: rate, updated: now)
            let elapsed = now - bucket.updated
            let seconds = elapsed.inSeconds
            bucket.tokens = min(rate, bucket.tokens + seconds * rate)
            bucket.updated = now
            if buckets.count > 100_000 { buckets.removeAll() }
            guard bucket.tokens >= 1 else {
                buckets[key] = bucket
                return max(1, Int(((1 - bucket.tokens) / rate).rounded(.up)))
            }
            bucket.tokens -= 1
            buckets[key] = bucket
            return nil
        }
    }
}
