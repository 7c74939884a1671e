import Foundation
import Logging
import NIOConcurrencyHelpers
import RemoteConfigStore

/// Sends the outbox's deliveries (a `Worker`); runs on every server, and servers share the work through the
/// database's claims and leases (see `WebhookStore.claim`). It looks for work at each poll, when a delivery was
/// queued on any replica (the store's NOTIFY), and when one of its attempts ended (the webhook's next delivery
/// may be due now).
struct WebhookDeliverer: BackgroundWork {
    let store: WebhookStore
    let payload: WebhookPayload
    let client: OutboundHTTPClient
    let settings: WebhookSettings
    let logger: Logger
    /// Woken when an attempt ends.
    let wakeup: Wakeup

    /// At most this many attempts are in flight on one server: each holds a connection for up to the attempt
    /// deadline, so their number is bounded; below it, a receiver that hangs holds only its own slot.
    static let maximumInFlight = 256
    /// At most this many deliveries are claimed by one query.
    static let claimBatch = 32

    /// Attempts in flight, and when the outbox was last pruned (shared by every copy of this value; not a
    /// parameter of the memberwise initialiser, as it has its start value).
    let state = NIOLockedValueBox((inFlight: 0, pruned: ContinuousClock.Instant?.none))

    var name: String { "webhooks" }

    /// Prunes when it is time, then claims what fits in the free slots. Attempts run beside the worker and nobody
    /// waits for the slowest: deliveries to different webhooks are independent. (The claim hands out only the
    /// oldest pending delivery of each webhook, leased while it is in flight, so one webhook's deliveries still go
    /// one at a time, in order.)
    func round(beside: inout DiscardingTaskGroup) async throws -> Duration? {
        let pruneDue = state.withLockedValue { state in
            guard state.pruned.map({ ContinuousClock.now - $0 >= settings.pruneInterval }) ?? true else {
                return false
            }
            state.pruned = .now
            return true
        }
        if pruneDue { await prune() }
        let room = Self.maximumInFlight - state.withLockedValue { $0.inFlight }
        guard room > 0 else { return nil }
        let claimed = try await store.claim(limit: min(Self.claimBatch, room), lease: settings.lease)
        state.withLockedValue { $0.inFlight += claimed.count }
        for delivery in claimed {
            beside.addTask {
                await attempt(delivery)
                state.withLockedValue { $0.inFlight -= 1 }
                wakeup.wake()
            }
        }
        return nil
    }

    /// Forgets finished deliveries past keeping; every server does it, and doing it twice deletes nothing twice.
    func prune() async {
        do {
            // In batches, so that one call holds no lock for long however much piled up.
            while true {
                let pruned = try await store.prune(finished: settings.keepFinished, bodies: settings.keepBodies)
                if pruned.deliveries + pruned.bodies > 0 {
                    logger.info(
                        "webhooks: pruned the outbox",
                        metadata: ["deliveries": "\(pruned.deliveries)", "bodies": "\(pruned.bodies)"])
                }
                if Task.isCancelled || (pruned.deliveries < 10_000 && pruned.bodies < 10_000) { return }
            }
        } catch {
            logger.warning("webhooks: could not prune the outbox: \(error)")
        }
    }

    /// One attempt: make (or reuse) the body, sign, send, record.
    func attempt(_ delivery: ClaimedDelivery) async {
        let outcome: DeliveryOutcome
        do {
            let body: String
            if let made = delivery.body {
                body = made
            } else {
                body = try await payload.body(for: delivery)
                try await store.saveBody(delivery, body: body)
            }
            outcome = await send(delivery, body: Array(body.utf8))
        } catch {
            outcome = DeliveryOutcome(status: nil, error: "could not make the body: \(error)", delivered: false)
        }
        // Cut short by a stopping server: not the receiver's failure, so nothing is recorded. The lease runs out
        // and the delivery is attempted again (at least once), by another server or after the restart.
        if Task.isCancelled { return }
        if !outcome.delivered {
            logger.info(
                "webhook delivery failed",
                metadata: [
                    "delivery": "\(delivery.id)", "webhook": "\(delivery.webhook.id)",
                    "error": "\(outcome.error ?? "")",
                ])
        }
        do {
            try await store.record(
                delivery, outcome, retryAfter: settings.retryDelay(afterAttempts: delivery.attempts + 1),
                giveUpAfter: settings.giveUpAfter)
        } catch {
            // The lease runs out and another attempt follows: at least once.
            logger.warning("webhooks: could not record an attempt of \(delivery.id): \(error)")
        }
    }

    func send(_ delivery: ClaimedDelivery, body: [UInt8]) async -> DeliveryOutcome {
        let timestamp = Int64(Date().timeIntervalSince1970)
        let headers = [
            ("RC-Webhook-Id", delivery.id), ("RC-Webhook-Timestamp", String(timestamp)),
            (
                "RC-Webhook-Signature",
                WebhookSignature.header(secrets: delivery.webhook.activeSecrets, timestamp: timestamp, body: body)
            ),
        ]
        do {
            let status = try await client.post(delivery.webhook.url, headers: headers, body: body)
            if (200..<300).contains(status) { return DeliveryOutcome(status: status, error: nil, delivered: true) }
            let error = (300..<400).contains(status) ? "HTTP \(status): redirects are not followed" : "HTTP \(status)"
            return DeliveryOutcome(status: status, error: error, delivered: false)
        } catch {
            return DeliveryOutcome(status: nil, error: "\(error)", delivered: false)
        }
    }
}
