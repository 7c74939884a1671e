import Foundation
import JWTKit
import Logging
import NIOConcurrencyHelpers
import NIOHTTP1
import RemoteConfigCore

/// The team's OpenID Connect provider, as its discovery document describes it: where to send people, where
/// to exchange codes, and its signing keys, fetched again when a token names a key id not seen yet (at most
/// once a minute). The provider is trusted for who a person is, and for nothing else.
public final class OIDCProvider: Sendable {
    /// The fields of `/.well-known/openid-configuration` the server uses.
    struct Metadata: Decodable, Sendable {
        let issuer: String
        let authorizationEndpoint: String
        let tokenEndpoint: String
        let jwksURI: String
        let userinfoEndpoint: String?
        let deviceAuthorizationEndpoint: String?
        let tokenEndpointAuthMethodsSupported: [String]?
        let scopesSupported: [String]?

        enum CodingKeys: String, CodingKey {
            case issuer
            case authorizationEndpoint = "authorization_endpoint"
            case tokenEndpoint = "token_endpoint"
            case jwksURI = "jwks_uri"
            case userinfoEndpoint = "userinfo_endpoint"
            case deviceAuthorizationEndpoint = "device_authorization_endpoint"
            case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
            case scopesSupported = "scopes_supported"
        }
    }

    /// Why a call to the provider failed, in words for a person and the log.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    let settings: SignInSettings
    let metadata: Metadata
    let client: OutboundHTTPClient
    let logger: Logger
    private let keys: NIOLockedValueBox<SigningKeys>

    /// The signing keys last fetched, and when.
    struct SigningKeys: Sendable {
        var collection: JWTKeyCollection
        /// Each key id with the algorithm its JWK declares (nil when it declares none) and its key type.
        var declared: [String: (algorithm: String?, type: String)]
        var fetched: ContinuousClock.Instant
    }

    private init(
        settings: SignInSettings, metadata: Metadata, keys: SigningKeys, client: OutboundHTTPClient,
        logger: Logger
    ) {
        self.settings = settings
        self.metadata = metadata
        self.keys = NIOLockedValueBox(keys)
        self.client = client
        self.logger = logger
    }

    /// Reads the issuer's discovery document and signing keys; one line saying what is wrong otherwise.
    public static func discover(_ settings: SignInSettings, logger: Logger) async throws -> OIDCProvider {
        let issuer = settings.issuer.hasSuffix("/") ? String(settings.issuer.dropLast()) : settings.issuer
        // The operator names the provider; it may well be on the team's own network.
        let client = OutboundHTTPClient(
            allowPrivate: true, timeout: .seconds(10), answerLimit: 1 << 20, userAgent: "remote-config-sign-in")
        let url = issuer + "/.well-known/openid-configuration"
        let metadata: Metadata
        do {
            let answer = try await client.send(.GET, url, headers: [("Accept", "application/json")])
            guard answer.status == 200 else { throw Failure(description: "\(url) answered \(answer.status)") }
            metadata = try JSONDecoder().decode(Metadata.self, from: Data(answer.body))
        } catch let failure as Failure {
            throw failure
        } catch let failure as OutboundHTTPClient.Failure {
            throw Failure(description: "\(url): \(failure.description)")
        } catch {
            throw Failure(description: "\(url) is not an OpenID Connect discovery document (\(error))")
        }
        // OpenID Connect Discovery 1.0, section 4.3: the document's issuer must be exactly the one asked for.
        guard metadata.issuer == settings.issuer || metadata.issuer == issuer else {
            throw Failure(description: "\(url) names the issuer \(metadata.issuer), not \(settings.issuer)")
        }
        let keys = try await fetchKeys(metadata.jwksURI, client: client)
        return OIDCProvider(settings: settings, metadata: metadata, keys: keys, client: client, logger: logger)
    }

    /// The signing keys at `url`; keys that are not for signatures, or that jwt-kit cannot use, are left out.
    static func fetchKeys(_ url: String, client: OutboundHTTPClient) async throws -> SigningKeys {
        let answer: OutboundHTTPClient.Answer
        do {
            answer = try await client.send(.GET, url, headers: [("Accept", "application/json")])
        } catch let failure as OutboundHTTPClient.Failure {
            throw Failure(description: "the provider's keys (\(url)): \(failure.description)")
        }
        guard answer.status == 200, !answer.cut else {
            throw Failure(description: "the provider's keys (\(url)) answered \(answer.status)")
        }
        let set: JWKS
        do {
            set = try JSONDecoder().decode(JWKS.self, from: Data(answer.body))
        } catch {
            throw Failure(description: "the provider's keys (\(url)) are not a JWK set (\(error))")
        }
        let collection = JWTKeyCollection()
        var declared: [String: (algorithm: String?, type: String)] = [:]
        for key in set.keys {
            guard let id = key.keyIdentifier?.string else { continue }
            do {
                try await collection.add(jwk: key)
                declared[id] = (key.algorithm?.rawValue, key.keyType.rawValue)
            } catch {
                continue
            }
        }
        return SigningKeys(collection: collection, declared: declared, fetched: .now)
    }

    /// The keys, fetched again first when `keyID` is not among them and the last fetch is a minute old.
    func keys(for keyID: String?) async -> SigningKeys {
        let current = keys.withLockedValue { $0 }
        guard let keyID, current.declared[keyID] == nil, current.fetched.duration(to: .now) > .seconds(60) else {
            return current
        }
        do {
            let fresh = try await Self.fetchKeys(metadata.jwksURI, client: client)
            keys.withLockedValue { $0 = fresh }
            logger.info("fetched the provider's signing keys again", metadata: ["kid": "\(keyID)"])
            return fresh
        } catch {
            logger.warning("could not fetch the provider's signing keys: \(error)")
            keys.withLockedValue { $0.fetched = .now }
            return current
        }
    }

    /// The client's credentials for the token endpoint: HTTP Basic by default (RFC 6749, 2.3.1), in the body
    /// when the provider advertises only `client_secret_post`, the client id alone for a public client.
    func clientAuthentication() -> (headers: [(String, String)], form: [(String, String)]) {
        guard let secret = settings.clientSecret else { return ([], [("client_id", settings.clientID)]) }
        let methods = metadata.tokenEndpointAuthMethodsSupported ?? ["client_secret_basic"]
        if !methods.contains("client_secret_basic"), methods.contains("client_secret_post") {
            return ([], [("client_id", settings.clientID), ("client_secret", secret)])
        }
        let pair = FormEncoding.component(settings.clientID) + ":" + FormEncoding.component(secret)
        return ([("Authorization", "Basic " + Data(pair.utf8).base64EncodedString())], [])
    }

    /// POSTs a form to `url` with the client's credentials and answers the status and the JSON object.
    func postForm(_ url: String, _ fields: [(String, String)]) async throws -> (Int, JSONValue) {
        let auth = clientAuthentication()
        let body = FormEncoding.encode(fields + auth.form)
        let answer: OutboundHTTPClient.Answer
        do {
            answer = try await client.send(
                .POST, url,
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
                    + auth.headers, body: Array(body.utf8))
        } catch let failure as OutboundHTTPClient.Failure {
            throw Failure(description: "the provider (\(url)) did not answer: \(failure.description)")
        }
        guard let value = try? JSONValue(parsing: answer.body), value.objectValue != nil else {
            throw Failure(description: "the provider (\(url)) answered \(answer.status) without a JSON object")
        }
        return (answer.status, value)
    }

    /// GETs a JSON object with a bearer access token (the userinfo endpoint).
    func getJSON(_ url: String, accessToken: String) async throws -> JSONValue {
        let answer: OutboundHTTPClient.Answer
        do {
            answer = try await client.send(
                .GET, url, headers: [("Authorization", "Bearer \(accessToken)"), ("Accept", "application/json")])
        } catch let failure as OutboundHTTPClient.Failure {
            throw Failure(description: "the provider (\(url)) did not answer: \(failure.description)")
        }
        guard answer.status == 200, let value = try? JSONValue(parsing: answer.body), value.objectValue != nil else {
            throw Failure(description: "the provider's userinfo (\(url)) answered \(answer.status)")
        }
        return value
    }
}

/// `application/x-www-form-urlencoded`, as OAuth 2.0 sends its requests (RFC 6749, appendix B).
enum FormEncoding {
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// One name or value, percent-encoded.
    static func component(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// Fields as a form body or a query.
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { component($0.0) + "=" + component($0.1) }.joined(separator: "&")
    }
}
