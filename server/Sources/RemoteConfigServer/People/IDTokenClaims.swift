import Foundation
import JWTKit

/// The claims of an OpenID Connect ID token that the server reads; the groups claim, whose name is a
/// setting, is read apart (`SignInClaims`).
struct IDTokenClaims: JWTPayload {
    var issuer: String
    var subject: String
    var audience: AudienceClaim
    var expiration: ExpirationClaim
    var issuedAt: IssuedAtClaim
    var nonce: String?
    var authorizedParty: String?
    var email: String?
    var emailVerified: Bool?
    var name: String?
    var preferredUsername: String?

    enum CodingKeys: String, CodingKey {
        case issuer = "iss"
        case subject = "sub"
        case audience = "aud"
        case expiration = "exp"
        case issuedAt = "iat"
        case nonce
        case authorizedParty = "azp"
        case email
        case emailVerified = "email_verified"
        case name
        case preferredUsername = "preferred_username"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        issuer = try container.decode(String.self, forKey: .issuer)
        subject = try container.decode(String.self, forKey: .subject)
        audience = try container.decode(AudienceClaim.self, forKey: .audience)
        expiration = try container.decode(ExpirationClaim.self, forKey: .expiration)
        issuedAt = try container.decode(IssuedAtClaim.self, forKey: .issuedAt)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        authorizedParty = try container.decodeIfPresent(String.self, forKey: .authorizedParty)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        // Some providers (older Cognito, Azure B2C) send it as the string "true".
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: .emailVerified) {
            emailVerified = flag
        } else {
            emailVerified = (try? container.decodeIfPresent(String.self, forKey: .emailVerified)) == "true"
        }
        name = try container.decodeIfPresent(String.self, forKey: .name)
        preferredUsername = try container.decodeIfPresent(String.self, forKey: .preferredUsername)
    }

    /// The claims are checked by `IDTokenVerifier`, against the configuration, once the signature holds.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
