import Foundation
import Logging
import PostgresNIO

extension ServerSecrets {
    /// Seals every secret of the database at `url` again, under `new`'s key, in one transaction: what `current`
    /// opens (`SecretsKeyMismatch` when it is not the database's key) is sealed under the new key, the key
    /// check with it. Returns how many secrets (the key check aside) it sealed again. A server still running with the old key can
    /// neither read these any more nor write a secret (see `requireCurrentKey`): restart every server with the
    /// new key.
    public static func rotate(_ url: DatabaseURL, from current: SecretSealer, to new: SecretSealer, logger: Logger)
        async throws -> Int
    {
        try await PostgresConnectionHandle.with(url, logger: logger) { handle in
            try await inTransaction(handle.connection, logger: logger) { connection in
                // As a start would, under `current`: the check, secrets left in plain text, the sample key.
                _ = try await prepare(on: connection, sealer: current, logger: logger)
                var count = try await resealWebhookSecrets(from: current, to: new, on: connection, logger: logger)
                count += try await GooglePlayLinkStore.resealKeys(
                    from: current, to: new, on: connection, logger: logger)
                let rows = try await connection.query(
                    "SELECT name, value FROM server_secrets ORDER BY name FOR UPDATE", logger: logger)
                var stored: [(String, String)] = []
                for try await row in rows.decode((String, String).self) { stored.append(row) }
                for (name, value) in stored {
                    let place = "server_secrets/\(name)"
                    let plain = try current.open(value, for: place)
                    try await connection.query(
                        "UPDATE server_secrets SET value = \(try new.seal(plain, for: place)) WHERE name = \(name)",
                        logger: logger)
                    if name != "key_check" { count += 1 }
                }
                return count
            }
        }
    }

    /// Every webhook's secrets opened with `current` and sealed with `new`; returns how many.
    static func resealWebhookSecrets(
        from current: SecretSealer, to new: SecretSealer, on connection: PostgresConnection, logger: Logger
    ) async throws -> Int {
        let rows = try await connection.query(
            "SELECT webhook_id, secret, previous_secret FROM webhooks ORDER BY webhook_id FOR UPDATE", logger: logger)
        var webhooks: [(String, String, String?)] = []
        for try await row in rows.decode((String, String, String?).self) { webhooks.append(row) }
        var count = 0
        for (id, secret, previous) in webhooks {
            let place = WebhookStore.secretPlace(id)
            let sealed = try new.seal(try current.open(secret, for: place), for: place)
            let sealedPrevious = try previous.map { try new.seal(try current.open($0, for: place), for: place) }
            try await connection.query(
                "UPDATE webhooks SET secret = \(sealed), previous_secret = \(sealedPrevious) WHERE webhook_id = \(id)",
                logger: logger)
            count += previous == nil ? 1 : 2
        }
        return count
    }
}
