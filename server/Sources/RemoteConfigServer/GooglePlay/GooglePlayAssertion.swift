import Foundation
import JWTKit
import RemoteConfigStore

/// The JWT a service account proves itself with at Google's token endpoint ("Using OAuth 2.0 for Server to
/// Server Applications"): RS256 with the key's private key, header `kid` its `private_key_id`, and the claims
/// `iss` (the account's e-mail), `scope`, `aud` (the token URL), `iat` and `exp` (an hour later, Google's most).
struct GooglePlayAssertion: JWTPayload {
    static let scope = "https://www.googleapis.com/auth/androidpublisher"
    /// Google accepts an assertion that lives at most an hour.
    static let lifetime: TimeInterval = 3600

    var iss: String
    var scope: String
    var aud: String
    var iat: Int
    var exp: Int

    /// Nothing to verify: the server only signs these; Google checks them.
    func verify(using algorithm: some JWTAlgorithm) async throws {}

    /// The signed assertion of `key` for `tokenURL`, issued at `now`.
    static func signed(_ key: GooglePlayServiceAccountKey, tokenURL: String, now: Date) async throws(GooglePlayError)
        -> String
    {
        let issued = Int(now.timeIntervalSince1970)
        let claims = GooglePlayAssertion(
            iss: key.account.clientEmail, scope: scope, aud: tokenURL, iat: issued, exp: issued + Int(lifetime))
        do {
            let rsa = try Insecure.RSA.PrivateKey(pem: key.privateKeyPEM)
            let kid = JWKIdentifier(string: key.account.privateKeyId)
            let keys = JWTKeyCollection()
            await keys.add(rsa: rsa, digestAlgorithm: .sha256, kid: kid)
            return try await keys.sign(claims, kid: kid)
        } catch {
            // jwt-kit's errors name no part of the key.
            throw .signing(String(describing: type(of: error)))
        }
    }
}
