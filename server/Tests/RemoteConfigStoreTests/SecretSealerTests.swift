import Foundation
import RemoteConfigStore
import Testing

/// The sealing of stored secrets: AES-256-GCM, a fresh nonce each time, bound to the key and to the place.
@Suite struct SecretSealerTests {
    static let key = Data(repeating: 0x42, count: 32).base64EncodedString()
    static let other = Data(repeating: 0x43, count: 32).base64EncodedString()

    @Test func aSealedValueIsThePrefixAndTheBase64OfNonceCiphertextAndTag() throws {
        let sealer = try SecretSealer(base64: Self.key)
        let secret = "whsec_" + String(repeating: "ab", count: 32)
        let sealed = try sealer.seal(secret, for: "webhooks/0011")
        #expect(sealed.hasPrefix("rc-sealed-v1:") && SecretSealer.isSealed(sealed))
        let bytes = try #require(Data(base64Encoded: String(sealed.dropFirst("rc-sealed-v1:".count))))
        // 12 bytes of nonce, the 70 of the secret, 16 of tag.
        #expect(bytes.count == 12 + secret.utf8.count + 16)
        #expect(!sealed.contains(secret) && !sealed.contains(String(repeating: "ab", count: 32)))
        #expect(try sealer.open(sealed, for: "webhooks/0011") == secret)
        // Each seal has a nonce of its own: the same secret never seals alike twice.
        #expect(try sealer.seal(secret, for: "webhooks/0011") != sealed)
        #expect(!SecretSealer.isSealed(secret))
    }

    @Test func anotherKeyAnotherPlaceOrAChangedByteDoesNotOpen() throws {
        let sealer = try SecretSealer(base64: Self.key)
        let sealed = try sealer.seal("whsec_x", for: "webhooks/a")
        #expect(throws: SealedSecretError.self) { try SecretSealer(base64: Self.other).open(sealed, for: "webhooks/a") }
        #expect(throws: SealedSecretError.self) { try sealer.open(sealed, for: "webhooks/b") }
        var bytes = try #require(Data(base64Encoded: String(sealed.dropFirst(SecretSealer.prefix.count))))
        bytes[bytes.count - 20] ^= 1
        #expect(throws: SealedSecretError.self) {
            try sealer.open(SecretSealer.prefix + bytes.base64EncodedString(), for: "webhooks/a")
        }
        #expect(throws: SealedSecretError.self) { try sealer.open("whsec_x", for: "webhooks/a") }
        #expect(throws: SealedSecretError.self) { try sealer.open(SecretSealer.prefix + "%%%", for: "webhooks/a") }
    }

    @Test func aKeyIs32BytesInBase64() throws {
        #expect(try SecretSealer(base64: " \(Self.key)\n").isSameKey(as: try SecretSealer(base64: Self.key)))
        #expect(!(try SecretSealer(base64: Self.key).isSameKey(as: try SecretSealer(base64: Self.other))))
        #expect(throws: SecretsKeyError.wrongLength(16)) {
            try SecretSealer(base64: Data(count: 16).base64EncodedString())
        }
        #expect(throws: SecretsKeyError.notBase64) { try SecretSealer(base64: "not a key") }
        // A log line that names a sealer or the server's secrets shows no key.
        let sealer = try SecretSealer(base64: Self.key)
        #expect("\(sealer)" == "SecretSealer(redacted)" && String(reflecting: sealer) == "SecretSealer(redacted)")
        let made = SecretSealer.newKey()
        #expect(Data(base64Encoded: made)?.count == 32 && made != SecretSealer.newKey())
    }
}
