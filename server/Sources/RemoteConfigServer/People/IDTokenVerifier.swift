import Foundation
import JWTKit
import RemoteConfigCore

/// Checks an ID token as OpenID Connect Core 1.0 (section 3.1.3.7) says: signed with a key of the provider's
/// JWKS for the algorithm that key declares (never `none`, never HMAC), issued by the issuer for this client,
/// not expired, not issued in the future, and carrying the nonce the sign-in sent. The signature is jwt-kit's
/// to check; what is checked here is which key and algorithm it may be, and the claims.
struct IDTokenVerifier: Sendable {
    let provider: OIDCProvider
    /// Clock skew allowed on `exp` and `iat`.
    var leeway: TimeInterval = 60
    var now: @Sendable () -> Date = { Date() }

    /// Why a token was refused, in words for the person and the log.
    struct Refusal: Error, CustomStringConvertible, Equatable {
        let description: String
    }

    /// The asymmetric JOSE algorithms a provider may sign with (RFC 7518, RFC 8037).
    static let asymmetric: [String: Set<String>] = [
        "RSA": ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"],
        "EC": ["ES256", "ES384", "ES512"],
        "OKP": ["EdDSA"],
    ]

    /// The verified claims, and the payload as JSON for the claims whose names are settings (groups).
    func verify(_ token: String, nonce expectedNonce: String?) async throws -> (IDTokenClaims, JSONValue) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Self.base64URLDecode(parts[0]),
            let payloadBytes = Self.base64URLDecode(parts[1]),
            let header = try? JSONValue(parsing: headerBytes), let payload = try? JSONValue(parsing: payloadBytes),
            payload.objectValue != nil
        else { throw Refusal(description: "the ID token is not a signed JWT") }
        guard let algorithm = header["alg"]?.stringValue else {
            throw Refusal(description: "the ID token's header names no algorithm")
        }
        if algorithm.lowercased() == "none" {
            throw Refusal(description: "the ID token is not signed (alg none)")
        }
        if algorithm.uppercased().hasPrefix("HS") {
            throw Refusal(description: "the ID token is signed with \(algorithm), a shared-secret algorithm")
        }
        let keyID = header["kid"]?.stringValue
        let keys = await provider.keys(for: keyID)
        let declared: (algorithm: String?, type: String)
        if let keyID {
            guard let found = keys.declared[keyID] else {
                throw Refusal(
                    description: "the ID token names a signing key (kid \(keyID)) the provider does not publish")
            }
            declared = found
        } else {
            guard keys.declared.count == 1, let only = keys.declared.values.first else {
                throw Refusal(description: "the ID token names no key id and the provider publishes several keys")
            }
            declared = only
        }
        if let wanted = declared.algorithm {
            guard wanted == algorithm else {
                throw Refusal(description: "the ID token is signed with \(algorithm); its key is for \(wanted)")
            }
        }
        guard Self.asymmetric[declared.type]?.contains(algorithm) == true else {
            throw Refusal(description: "the ID token's algorithm \(algorithm) does not fit its \(declared.type) key")
        }
        let claims: IDTokenClaims
        do {
            claims = try await keys.collection.verify(token, as: IDTokenClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw Refusal(description: "the ID token's signature does not verify with the provider's key")
        } catch {
            throw Refusal(description: "the ID token could not be verified (\(error))")
        }
        try check(claims, nonce: expectedNonce)
        return (claims, payload)
    }

    private func check(_ claims: IDTokenClaims, nonce expectedNonce: String?) throws {
        let settings = provider.settings
        guard claims.issuer == provider.metadata.issuer else {
            throw Refusal(description: "the ID token was issued by \(claims.issuer), not \(provider.metadata.issuer)")
        }
        guard claims.audience.value.contains(settings.clientID) else {
            throw Refusal(description: "the ID token is for another client (aud \(claims.audience.value))")
        }
        if claims.audience.value.count > 1, claims.authorizedParty == nil {
            throw Refusal(description: "the ID token has several audiences and no azp")
        }
        if let party = claims.authorizedParty, party != settings.clientID {
            throw Refusal(description: "the ID token was requested by another client (azp \(party))")
        }
        let now = now()
        do {
            try claims.expiration.verifyNotExpired(currentDate: now.addingTimeInterval(-leeway))
        } catch {
            throw Refusal(description: "the ID token expired at \(RFC3339.format(claims.expiration.value))")
        }
        guard claims.issuedAt.value <= now.addingTimeInterval(leeway) else {
            throw Refusal(description: "the ID token was issued in the future")
        }
        guard !claims.subject.isEmpty else { throw Refusal(description: "the ID token names no subject") }
        if let expectedNonce {
            guard let nonce = claims.nonce,
                Authenticator.constantTimeEqual(Array(nonce.utf8), Array(expectedNonce.utf8))
            else { throw Refusal(description: "the ID token's nonce is not the one this sign-in sent") }
        }
    }

    static func base64URLDecode(_ text: Substring) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}
