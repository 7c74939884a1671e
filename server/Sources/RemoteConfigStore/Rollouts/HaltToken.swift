import Foundation
import RemoteConfigCore

/// Halt tokens: random, recognisable by their `rch_` prefix, stored only as SHA-256.
public enum HaltToken {
    /// A new token: `rch_` and 32 base62 characters.
    public static func generate() -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var generator = SystemRandomNumberGenerator()
        let body = String((0..<32).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
        return "rch_\(body)"
    }
}
