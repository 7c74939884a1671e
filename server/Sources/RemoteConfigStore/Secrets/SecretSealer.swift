import Crypto
import Foundation

/// Seals what the server must read back (webhook signing secrets, Google Play service-account keys, its own keys)
/// with AES-256-GCM under the secrets key, so that the database alone reveals none of them.
///
/// A sealed value is `rc-sealed-v1:` and the base64 of the 12-byte nonce, the ciphertext and the 16-byte tag.
/// Each is sealed for its place (`webhooks/<id>`, `server_secrets/<name>`), authenticated with it, so a value
/// copied to another row does not open there. Printed, it shows nothing of its key.
public struct SecretSealer: Sendable, CustomStringConvertible {
    /// What every sealed value begins with: the format and its version.
    public static let prefix = "rc-sealed-v1:"

    let key: SymmetricKey

    /// A sealer with the key `text` holds: 32 bytes in base64 (white space around it ignored).
    public init(base64 text: String) throws(SecretsKeyError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let bytes = Data(base64Encoded: trimmed) else { throw .notBase64 }
        guard bytes.count == 32 else { throw .wrongLength(bytes.count) }
        key = SymmetricKey(data: bytes)
    }

    /// A new secrets key: 32 random bytes, in base64.
    public static func newKey() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// Says what it is, not what key it holds.
    public var description: String { "SecretSealer(redacted)" }

    /// Whether `other` seals under the same key.
    public func isSameKey(as other: SecretSealer) -> Bool { key == other.key }

    /// Whether `stored` is a sealed value (else it is plain text, as releases before sealing kept it).
    public static func isSealed(_ stored: String) -> Bool { stored.hasPrefix(prefix) }

    /// `plaintext` sealed for `place`, under a nonce of its own.
    public func seal(_ plaintext: String, for place: String) throws -> String {
        let box = try AES.GCM.seal(Data(plaintext.utf8), using: key, authenticating: Data(place.utf8))
        // A box made with the default 12-byte nonce always has its combined form.
        guard let combined = box.combined else { throw SealedSecretError(place: place) }
        return Self.prefix + combined.base64EncodedString()
    }

    /// What `sealed` holds; `SealedSecretError` when it is not a sealed value, was sealed under another key or
    /// for another place.
    public func open(_ sealed: String, for place: String) throws(SealedSecretError) -> String {
        guard Self.isSealed(sealed), let data = Data(base64Encoded: String(sealed.dropFirst(Self.prefix.count)))
        else { throw SealedSecretError(place: place) }
        do {
            let box = try AES.GCM.SealedBox(combined: data)
            let plain = try AES.GCM.open(box, using: key, authenticating: Data(place.utf8))
            return String(decoding: plain, as: UTF8.self)
        } catch {
            throw SealedSecretError(place: place)
        }
    }
}

/// A secrets key that cannot be used: not base64, or not 32 bytes.
public enum SecretsKeyError: Error, Equatable, CustomStringConvertible {
    /// The text is not base64.
    case notBase64
    /// It decodes to this many bytes, not 32.
    case wrongLength(Int)

    public var description: String {
        switch self {
        case .notBase64: "is not base64: a key is 32 random bytes in base64 (openssl rand -base64 32)"
        case .wrongLength(let count): "holds \(count) bytes where a key has 32 (openssl rand -base64 32)"
        }
    }
}

/// A sealed value that this server's key does not open: sealed under another key (rotated while this server
/// ran), for another place, or damaged.
public struct SealedSecretError: Error, CustomStringConvertible {
    /// Where the value is kept (`webhooks/<id>`, `server_secrets/<name>`).
    public let place: String

    public var description: String {
        "the sealed secret of \(place) does not open with this server's secrets key; if the key was rotated, "
            + "restart this server with the new one"
    }
}
