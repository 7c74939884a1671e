import Crypto
import Foundation
import RemoteConfigCore

/// `RC-Webhook-Signature`: `v1=<hex HMAC-SHA256(secret, timestamp + "." + body)>` per active secret.
enum WebhookSignature {
    /// The header value for `body` sent at `timestamp` (unix seconds), signed by each of `secrets`.
    static func header(secrets: [String], timestamp: Int64, body: [UInt8]) -> String {
        secrets.map { "v1=" + sign(secret: $0, timestamp: timestamp, body: body) }.joined(separator: " ")
    }

    /// Lowercase hex HMAC-SHA256 of `timestamp.body` under `secret` (the whole `whsec_…` string is the key).
    static func sign(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        var message = Array("\(timestamp).".utf8)
        message += body
        let code = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: Data(secret.utf8)))
        return code.hexEncoded
    }
}
