import Foundation
import Logging
import RemoteConfigStore
import ServiceLifecycle

/// Sends the outbox's deliveries; runs on every server, and servers share the work through the database's
/// claims and leases (see `WebhookStore.claim`).
struct WebhookDeliverer: Service {
    let store: WebhookStore
    let payload: WebhookPayload
    let client: OutboundHTTPClient
    let settings: WebhookSettings
    let logger: Logger

    /// At most this many attempts are in flight on one server: each holds a connection for up to the attempt
    /// deadline, so their number is bounded; below it, a receiver that hangs holds only its own slot.
    static let maximumInFlight = 256
    /// At most this many deliveries are claimed by one query.
    static let claimBatch = 32

    /// What ends a wait in `run`: an attempt, or the poll interval.
    private enum Wake: Sendable {
        case attempted
        case tick
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            // Attempts run side by side and nobody waits for the slowest: deliveries to different webhooks are
            // independent. (The claim hands out only the oldest pending delivery of each webhook, leased while
            // it is in flight, so one webhook's deliveries still go one at a time, in order.)
            await withTaskGroup(of: Wake.self) { group in
                var inFlight = 0
                var ticking = false
                var pruned: ContinuousClock.Instant?
                while !Task.isCancelled {
                    if pruned.map({ ContinuousClock.now - $0 >= settings.pruneInterval }) ?? true {
                        await prune()
                        pruned = .now
                    }
                    let room = Self.maximumInFlight - inFlight
                    if room > 0 {
                        for delivery in await claim(limit: min(Self.claimBatch, room)) {
                            inFlight += 1
                            group.addTask {
                                await attempt(delivery)
                                return .attempted
                            }
                        }
                    }
                    if !ticking {
                        ticking = true
                        group.addTask {
                            try? await Task.sleep(for: settings.pollInterval)
                            return .tick
                        }
                    }
                    // Claim again when an attempt ends (the webhook's next delivery may be due now) or at the next
                    // poll, whichever comes first.
                    switch await group.next() {
                    case .attempted: inFlight -= 1
                    case .tick: ticking = false
                    case nil: return
                    }
                }
            }
        }
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

    /// Claims up to `limit` due deliveries; none when the database cannot be reached (the next poll tries again).
    func claim(limit: Int) async -> [ClaimedDelivery] {
        do {
            return try await store.claim(limit: limit, lease: settings.lease)
        } catch {
            logger.warning("webhooks: could not claim deliveries: \(error)")
            return []
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
