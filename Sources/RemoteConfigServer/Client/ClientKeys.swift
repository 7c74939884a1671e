import Foundation
import NIOConcurrencyHelpers
import RemoteConfigStore

/// Client keys in memory, by the SHA-256 of their secret, so a fetch checks its key without the database.
///
/// Filled at start, corrected on every NOTIFY (`revoke <id>`) and by the periodic check; a key not
/// in memory (created a moment ago on another server) is looked up once, and unknown secrets are
/// remembered briefly so a flood of bad keys does not reach the database.
public final class ClientKeys: Sendable {
    /// What a client key opens.
    public struct Key: Sendable, Equatable {
        public let id: String
        public let project: String?
        public let role: Role
    }

    private struct State {
        var byHash: [Data: Key] = [:]
        var unknown: [Data: ContinuousClock.Instant] = [:]
    }

    private let state = NIOLockedValueBox(State())
    private let revokeObservers = NIOLockedValueBox<[@Sendable (String) -> Void]>([])
    private let keys: KeyStore
    /// How long an unknown secret is answered from memory.
    let negativeTTL: Duration = .seconds(2)

    public init(keys: KeyStore) {
        self.keys = keys
    }

    /// The key with this secret, or nil when there is none (or it was revoked).
    public func lookup(secret: String) async throws -> Key? {
        let hash = KeySecret.hash(secret)
        let now = ContinuousClock.now
        let cached = state.withLockedValue { state -> (Key?, Bool) in
            if let key = state.byHash[hash] { return (key, true) }
            if let until = state.unknown[hash], until > now { return (nil, true) }
            return (nil, false)
        }
        if cached.1 { return cached.0 }
        let found = try await keys.authenticate(secret: secret)
        state.withLockedValue { state in
            if let found {
                state.byHash[hash] = Key(id: found.id, project: found.project, role: found.role)
            } else {
                if state.unknown.count > 10_000 { state.unknown.removeAll() }
                state.unknown[hash] = now + negativeTTL
            }
        }
        return found.map { Key(id: $0.id, project: $0.project, role: $0.role) }
    }

    /// Forgets a revoked key at once, and tells the observers (open streams of the key close).
    public func revoke(id: String) {
        state.withLockedValue { state in
            state.byHash = state.byHash.filter { $0.value.id != id }
        }
        for observer in revokeObservers.withLockedValue({ $0 }) { observer(id) }
    }

    /// Registers a callback for revocations.
    public func onRevoke(_ observer: @escaping @Sendable (String) -> Void) {
        revokeObservers.withLockedValue { $0.append(observer) }
    }

    /// Replaces the whole set with the database's active keys.
    public func synchronize() async throws {
        let active = try await keys.activeKeyHashes()
        let activeIDs = Set(active.map(\.key.id))
        let removed = state.withLockedValue { state -> Set<String> in
            let before = Set(state.byHash.values.map(\.id))
            state.byHash = Dictionary(
                active.map { ($0.hash, Key(id: $0.key.id, project: $0.key.project, role: $0.key.role)) },
                uniquingKeysWith: { first, _ in first })
            state.unknown.removeAll()
            return before.subtracting(activeIDs)
        }
        // Revocations whose NOTIFY this server missed: close their streams too.
        for id in removed {
            for observer in revokeObservers.withLockedValue({ $0 }) { observer(id) }
        }
    }
}
