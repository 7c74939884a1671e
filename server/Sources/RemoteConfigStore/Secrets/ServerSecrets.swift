import Crypto
import Foundation
import Logging
import PostgresNIO
import RemoteConfigCore

/// What a server holds for the secrets it keeps: the sealer of the secrets key, checked against the database,
/// and the key of the impact sample's hash, read from it. Every replica on one database has the same.
public struct ServerSecrets: Sendable {
    /// Seals and opens every secret the stores keep.
    public let sealer: SecretSealer
    /// The key of `SampleHash`, the impact sample's order.
    public let sampleKey: SipHashKey

    /// The secrets of the database at `url` under `sealer`'s key, made ready at start, in one transaction:
    /// the key checked against the database's key check (`SecretsKeyMismatch` when another key sealed its
    /// secrets; the check is made at the first start), secrets an earlier release kept in plain text sealed,
    /// and the sample key read (made at the first start, which ranks the stored sample by it). Doing it twice
    /// changes nothing the first did.
    public static func prepare(_ url: DatabaseURL, sealer: SecretSealer, logger: Logger) async throws -> ServerSecrets {
        try await PostgresConnectionHandle.with(url, logger: logger) { handle in
            try await inTransaction(handle.connection, logger: logger) { connection in
                try await prepare(on: connection, sealer: sealer, logger: logger)
            }
        }
    }

    /// `prepare`'s work inside the caller's transaction.
    static func prepare(on connection: PostgresConnection, sealer: SecretSealer, logger: Logger) async throws
        -> ServerSecrets
    {
        // Servers starting together take turns, so one makes the key check and the sample key.
        try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
        try await checkKey(sealer, on: connection, logger: logger)
        try await sealPlainWebhookSecrets(sealer, on: connection, logger: logger)
        let sampleKey = try await sampleKey(sealer, on: connection, logger: logger)
        return ServerSecrets(sealer: sealer, sampleKey: sampleKey)
    }

    /// The `pg_advisory_xact_lock` key of the secrets' start-up work and rotation.
    static let lockKey: Int64 = 0x7263_5f73_6563  // "rc_sec"

    /// The key check: this text, sealed under the key, for its place.
    static let keyCheckText = "remote-config secrets key check"
    static let keyCheckPlace = "server_secrets/key_check"
    static let sampleKeyPlace = "server_secrets/impact_sample_key"

    /// One server secret's sealed value, locked for the transaction (`FOR UPDATE` or `FOR SHARE`).
    static func stored(_ name: String, lock: String, on connection: PostgresConnection, logger: Logger) async throws
        -> String?
    {
        let rows = try await connection.query(
            "SELECT value FROM server_secrets WHERE name = \(name) FOR \(unescaped: lock)", logger: logger)
        for try await value in rows.decode(String.self) { return value }
        return nil
    }

    /// Opens the key check with `sealer`, or makes it when there is none: `SecretsKeyMismatch` when another key
    /// sealed it, or, with no check yet, any secret already sealed.
    static func checkKey(_ sealer: SecretSealer, on connection: PostgresConnection, logger: Logger) async throws {
        if let check = try await stored("key_check", lock: "UPDATE", on: connection, logger: logger) {
            guard (try? sealer.open(check, for: keyCheckPlace)) == keyCheckText else { throw SecretsKeyMismatch() }
            return
        }
        // No check yet, but something may have been sealed without one (a check row deleted by hand).
        let sealed = try await connection.query(
            """
            SELECT 'webhooks/' || webhook_id, secret FROM webhooks WHERE secret LIKE \(SecretSealer.prefix + "%")
            UNION ALL SELECT 'server_secrets/' || name, value FROM server_secrets
            UNION ALL SELECT 'google_play_links/' || project_id, private_key FROM google_play_links
            LIMIT 1
            """, logger: logger)
        for try await (place, value) in sealed.decode((String, String).self) {
            guard (try? sealer.open(value, for: place)) != nil else { throw SecretsKeyMismatch() }
        }
        try await connection.query(
            """
            INSERT INTO server_secrets (name, value)
            VALUES ('key_check', \(try sealer.seal(keyCheckText, for: keyCheckPlace)))
            """, logger: logger)
        logger.info("secrets: the database's key check is made; servers on this database need this secrets key")
    }

    /// Throws `SealedSecretError` unless `sealer`'s key is the database's key now: what a write of a secret
    /// checks, in its transaction, so that a server still running with a key `secrets rotate-key` replaced
    /// seals nothing under it. Rotation locks the check, so the two never cross.
    public static func requireCurrentKey(_ sealer: SecretSealer, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        let check = try await stored("key_check", lock: "SHARE", on: connection, logger: logger)
        guard let check, try sealer.open(check, for: keyCheckPlace) == keyCheckText else {
            throw SealedSecretError(place: keyCheckPlace)
        }
    }

    /// Seals the webhook secrets still in plain text (kept so by releases before sealing).
    static func sealPlainWebhookSecrets(_ sealer: SecretSealer, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        let pattern = SecretSealer.prefix + "%"
        let rows = try await connection.query(
            """
            SELECT webhook_id, secret, previous_secret FROM webhooks
            WHERE secret NOT LIKE \(pattern) OR previous_secret NOT LIKE \(pattern)
            FOR UPDATE
            """, logger: logger)
        var plain: [(String, String, String?)] = []
        for try await row in rows.decode((String, String, String?).self) { plain.append(row) }
        for (id, secret, previous) in plain {
            let place = WebhookStore.secretPlace(id)
            let sealed = SecretSealer.isSealed(secret) ? secret : try sealer.seal(secret, for: place)
            let sealedPrevious = try previous.map {
                SecretSealer.isSealed($0) ? $0 : try sealer.seal($0, for: place)
            }
            try await connection.query(
                "UPDATE webhooks SET secret = \(sealed), previous_secret = \(sealedPrevious) WHERE webhook_id = \(id)",
                logger: logger)
        }
        if !plain.isEmpty { logger.info("secrets: sealed the secrets of \(plain.count) webhooks kept in plain text") }
    }

    /// The impact sample's key: read, or made at the first start, when the stored sample (ranked by the public
    /// hash until then) is ranked again by it.
    static func sampleKey(_ sealer: SecretSealer, on connection: PostgresConnection, logger: Logger) async throws
        -> SipHashKey
    {
        if let stored = try await stored("impact_sample_key", lock: "SHARE", on: connection, logger: logger) {
            let text = try sealer.open(stored, for: sampleKeyPlace)
            guard let bytes = Data(base64Encoded: text), let key = SipHashKey(bytes: Array(bytes)) else {
                throw SealedSecretError(place: sampleKeyPlace)
            }
            return key
        }
        let bytes = SymmetricKey(size: .bits128).withUnsafeBytes { Array($0) }
        guard let key = SipHashKey(bytes: bytes) else { throw SealedSecretError(place: sampleKeyPlace) }
        try await connection.query(
            """
            INSERT INTO server_secrets (name, value)
            VALUES ('impact_sample_key', \(try sealer.seal(Data(bytes).base64EncodedString(), for: sampleKeyPlace)))
            """, logger: logger)
        let ranked = try await InsightsStore.rankSample(by: key, on: connection, logger: logger)
        logger.info("insights: the impact sample's hash is keyed now; \(ranked) stored instances ranked by it")
        return key
    }

    /// Runs `body` in a transaction of `connection`, throwing what `body` threw (not PostgresNIO's wrapper).
    static func inTransaction<T: Sendable>(
        _ connection: PostgresConnection, logger: Logger,
        _ body: (PostgresConnection) async throws -> sending T
    ) async throws -> T {
        do {
            return try await connection.withTransaction(logger: logger) { try await body($0) }
        } catch let error as PostgresTransactionError {
            throw error.closureError ?? error
        }
    }
}

/// The database's secrets were sealed under another key than the one this server was given.
public struct SecretsKeyMismatch: Error, CustomStringConvertible {
    public var description: String {
        "this database's secrets are sealed under another key; every server sharing a database needs the same key "
            + "(after `remote-config secrets rotate-key`, the new one)"
    }
}
