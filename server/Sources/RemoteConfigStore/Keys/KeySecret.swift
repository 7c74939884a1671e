import Crypto
import Foundation

/// Key secrets: random, recognisable by their prefix, stored only as SHA-256.
public enum KeySecret {
    /// A new secret for `role`: `rc_<role>_` and 32 base62 characters (190 bits of randomness).
    public static func generate(role: Role) -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var generator = SystemRandomNumberGenerator()
        let body = String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
        return "rc_\(role.rawValue)_\(body)"
    }

    /// The SHA-256 the database keeps.
    public static func hash(_ secret: String) -> Data {
        Data(SHA256.hash(data: Data(secret.utf8)))
    }

    /// The part shown in listings so people can tell keys apart: the role prefix and 4 characters.
    public static func prefix(of secret: String) -> String {
        let parts = secret.split(separator: "_", maxSplits: 2)
        guard parts.count == 3 else { return String(secret.prefix(8)) }
        return "rc_\(parts[1])_\(parts[2].prefix(4))"
    }
}
