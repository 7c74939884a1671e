import Foundation
import NIOConcurrencyHelpers
import RemoteConfigStore

/// Client keys in memory, by the SHA-256 of their secret, so a fetch checks its key without the database.
///
/// Filled at start, corrected on every NOTIFY (`key <id>`, `revoke <id>`) and by the periodic check. A secret that is
/// not in memory may belong to a key created a moment ago on another server: the whole set is then read
/// again, but at most once per `refreshInterval` and by one task at a time (the others wait for its
/// result), so a flood of random keys costs a few queries a second, never one per request. A secret still
/// unknown after a refresh is remembered as unknown for `negativeTTL`.
public final class ClientKeys: Sendable {
    /// What a client key opens.
    public struct Key: Sendable, Equatable {
        public let id: String
        public let project: String?
        public let role: Role
    }

    /// What memory alone says about a secret.
    enum Cached {
        case known(Key)
        /// Looked up recently and not found.
        case unknown
        /// Not in memory: `lookup(secret:)` must ask the database.
        case notCached
    }

    private struct State {
        var byHash: [Data: Key] = [:]
        /// Keys revoked while this server ran (few: revocation is rare and final).
        var revoked: Set<String> = []
        /// Changes whenever `byHash` loses or changes a key, which voids every connection's `Memo`.
        var generation: UInt64 = 0
        var unknown: [Data: ContinuousClock.Instant] = [:]
        var lastRefresh: ContinuousClock.Instant?
        /// The refresh under way, which lookups of unknown secrets wait for.
        var refreshing: Task<Void, any Error>?
    }

    private let state = NIOLockedValueBox(State())
    private let revokeObservers = NIOLockedValueBox<[@Sendable (String) -> Void]>([])
    private let refreshes = NIOLockedValueBox(0)
    private let keys: KeyStore
    /// How long an unknown secret is answered from memory.
    let negativeTTL: Duration = .seconds(2)
    /// The shortest time between two reads of the whole set caused by unknown secrets.
    let refreshInterval: Duration = .milliseconds(250)

    public init(keys: KeyStore) {
        self.keys = keys
    }

    /// How many times unknown secrets made this server read the key set (a flood of bad keys must not
    /// make this grow per request).
    public var refreshCount: Int { refreshes.withLockedValue { $0 } }

    /// A connection's last known key: the same secret again on that connection skips hashing it while no
    /// key was revoked or reread since (`generation`).
    struct Memo: Sendable {
        let secret: String
        let generation: UInt64
        let key: Key
    }

    /// What memory says about `secret`, without waiting; a known key is remembered in `memo` for the next
    /// call with the same secret.
    func cached(secret: String, memo: inout Memo?) -> Cached {
        if let known = memo, known.secret == secret, state.withLockedValue({ $0.generation }) == known.generation {
            return .known(known.key)
        }
        let (result, generation) = cached(hash: KeySecret.hash(secret), now: .now)
        if case .known(let key) = result { memo = Memo(secret: secret, generation: generation, key: key) }
        return result
    }

    /// What memory says about a secret's hash, and the generation it says it in.
    private func cached(hash: Data, now: ContinuousClock.Instant) -> (Cached, UInt64) {
        state.withLockedValue { state in
            if let key = state.byHash[hash] { return (.known(key), state.generation) }
            if let until = state.unknown[hash], until > now { return (.unknown, state.generation) }
            return (.notCached, state.generation)
        }
    }

    /// The key with this secret, or nil when there is none (or it was revoked).
    public func lookup(secret: String) async throws -> Key? {
        let hash = KeySecret.hash(secret)
        switch cached(hash: hash, now: .now).0 {
        case .known(let key): return key
        case .unknown: return nil
        case .notCached: break
        }
        try await refreshForUnknownSecret()
        let now = ContinuousClock.now
        return state.withLockedValue { state in
            if let key = state.byHash[hash] { return key }
            if state.unknown.count >= 10_000 { state.unknown = state.unknown.filter { $0.value > now } }
            if state.unknown.count >= 10_000 { state.unknown.removeAll() }
            state.unknown[hash] = now + negativeTTL
            return nil
        }
    }

    /// Reads the key set again unless that happened less than `refreshInterval` ago; joins a refresh
    /// already under way.
    private func refreshForUnknownSecret() async throws {
        let task = state.withLockedValue { state -> Task<Void, any Error> in
            if let running = state.refreshing { return running }
            let wait = state.lastRefresh.map { max(.zero, $0 + refreshInterval - .now) } ?? .zero
            let task = Task {
                if wait > .zero { try await Task.sleep(for: wait) }
                defer {
                    self.state.withLockedValue { state in
                        state.refreshing = nil
                        state.lastRefresh = .now
                    }
                }
                self.refreshes.withLockedValue { $0 += 1 }
                try await self.synchronize()
            }
            state.refreshing = task
            return task
        }
        try await task.value
    }

    /// Forgets every secret remembered as unknown, and lets the next unknown secret read the keys at
    /// once: a key was just created, perhaps on another server.
    public func forgetUnknown() {
        state.withLockedValue { state in
            state.unknown.removeAll()
            state.lastRefresh = nil
        }
    }

    /// Knows a key created on this server at once, without waiting for its NOTIFY: its first fetch or stream,
    /// which may come before the notification does, is then answered from memory like any other.
    public func install(secret: String, key: APIKey) {
        let hash = KeySecret.hash(secret)
        state.withLockedValue { state in
            guard !state.revoked.contains(key.id) else { return }
            state.byHash[hash] = Key(id: key.id, project: key.project, role: key.role)
            state.unknown[hash] = nil
        }
    }

    /// Forgets a revoked key at once, and tells the observers (open streams of the key close).
    public func revoke(id: String) {
        state.withLockedValue { state in
            state.byHash = state.byHash.filter { $0.value.id != id }
            state.revoked.insert(id)
            state.generation &+= 1
        }
        for observer in revokeObservers.withLockedValue({ $0 }) { observer(id) }
    }

    /// Registers a callback for revocations.
    public func onRevoke(_ observer: @escaping @Sendable (String) -> Void) {
        revokeObservers.withLockedValue { $0.append(observer) }
    }

    /// Replaces the whole set with the database's active keys.
    public func synchronize() async throws {
        apply(try await keys.activeKeyHashes())
    }

    /// Installs a read of the database's active keys.
    func apply(_ active: [(hash: Data, key: APIKey)]) {
        let activeIDs = Set(active.map(\.key.id))
        let removed = state.withLockedValue { state -> Set<String> in
            let before = Set(state.byHash.values.map(\.id))
            // A read that started before a revocation must not bring the revoked key back: revocation is
            // final, so keys revoked here are left out of whatever the database said.
            state.byHash = Dictionary(
                active.filter { !state.revoked.contains($0.key.id) }.map {
                    ($0.hash, Key(id: $0.key.id, project: $0.key.project, role: $0.key.role))
                },
                uniquingKeysWith: { first, _ in first })
            state.generation &+= 1
            return before.subtracting(activeIDs)
        }
        // Revocations whose NOTIFY this server missed: close their streams too.
        for id in removed {
            for observer in revokeObservers.withLockedValue({ $0 }) { observer(id) }
        }
    }
}
