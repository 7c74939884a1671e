import Foundation
import RemoteConfigCore

/// The one claim scheme for work exactly one replica must do outside a transaction (a webhook delivery's
/// attempt, a store link's sync). The claim picks rows with `FOR UPDATE SKIP LOCKED`, so replicas asking at
/// once get different rows, and stamps each with the lease's token and an expiry by the database's clock
/// (`clock_timestamp()`, which every replica shares); a row whose lease has expired can be claimed again.
/// Every later write of the work requires the token, so a replica whose lease ran out while it worked (it
/// stalled, or another took over) writes nothing. Work done inside one transaction needs no lease: it holds
/// the row lock until it commits (`DueWork`).
public struct Lease: Sendable, Hashable {
    /// Proves the holder on every write of the work.
    public let token: UUID
    /// How long the claim holds, in seconds, as `make_interval(secs => …)` takes it.
    let seconds: Double

    /// A new lease, lasting `duration` from when the claim is written.
    init(lasting duration: Duration) {
        token = UUID()
        seconds = duration.inSeconds
    }
}

/// A write of claimed work was refused: the lease ran out and another replica holds the work now.
public struct LeaseLost: Error, Equatable {
    public init() {}
}
