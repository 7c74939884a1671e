import Foundation
import HTTPTypes

/// Which web origins may call the client routes (fetch, OFREP, the stream) from a browser
/// (`--cors-origins`), and the headers that say so. Admin routes never answer with CORS headers: the console
/// is served by the server itself, and an admin key belongs in no other origin's page.
public struct CORSPolicy: Sendable, Equatable {
    /// The allowed origins as browsers send them (`https://shop.example.com`, lowercase, no path).
    public private(set) var origins: Set<String> = []
    /// `*`: any origin of the usual shape.
    public private(set) var allowsAnyOrigin = false

    /// No origin is allowed (the default): browsers call the client routes only from the server's own origin.
    public static let none = CORSPolicy()

    private init() {}

    /// Reads the flag's value: origins separated by commas, or `*`; the error names the entry at fault.
    public init(parsing text: String) throws(ServerConfiguration.Invalid) {
        for entry in text.split(separator: ",") {
            let origin = entry.trimmingCharacters(in: .whitespaces)
            if origin == "*" {
                allowsAnyOrigin = true
                continue
            }
            var normalised = origin.lowercased()
            if normalised.hasSuffix("/") { normalised.removeLast() }
            guard Self.isOrigin(normalised) else {
                throw ServerConfiguration.Invalid(
                    "--cors-origins / RC_CORS_ORIGINS: '\(origin)' is not an origin such as https://shop.example.com, or *"
                )
            }
            origins.insert(normalised)
        }
    }

    /// Whether any origin is allowed at all.
    public var isEnabled: Bool { allowsAnyOrigin || !origins.isEmpty }

    /// Whether a request's `Origin` may call the client routes. The value goes back in a header, so it must
    /// have an origin's shape even when any origin is allowed (`null`, sent by sandboxed pages, never is).
    func allows(_ origin: some StringProtocol) -> Bool {
        guard isEnabled else { return false }
        let text = String(origin)
        if origins.contains(text) { return true }
        return allowsAnyOrigin && Self.isOrigin(text)
    }

    /// `scheme://host[:port]` in lowercase letters, digits and `.-[]:` (an IPv6 host), nothing else.
    static func isOrigin(_ text: String) -> Bool {
        guard let separator = text.range(of: "://") else { return false }
        let scheme = text[..<separator.lowerBound]
        let authority = text[separator.upperBound...]
        guard let first = scheme.first, first.isASCII, first.isLetter, !authority.isEmpty, authority.count <= 253,
            scheme.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || "+-.".contains($0)) }),
            authority.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || ".-[]:".contains($0)) })
        else { return false }
        return true
    }

    /// The methods the client routes take from a browser.
    static let allowedMethods = "GET, POST, OPTIONS"
    /// The request headers a browser may send: those the SDKs and OpenFeature providers send.
    static let allowedHeaders = [
        HTTPField.Name.contentType, .apiKey, .authorization, .ifNoneMatch, .lastEventID, .requestID, .accept,
    ].map(\.canonicalName).joined(separator: ", ")
    /// How long a browser may reuse a preflight's answer, in seconds.
    static let maxAge = "3600"

    /// The headers of an answer to `origin` (which `allows` allowed).
    static func answerFields(origin: String) -> HTTPFields {
        [
            .accessControlAllowOrigin: origin, .accessControlExposeHeaders: "ETag", .vary: "Origin",
        ]
    }

    /// The same headers as lines for the fronts that write a head by hand, each ending in CRLF.
    static func answerLines(origin: String) -> String {
        "Access-Control-Allow-Origin: \(origin)\r\nAccess-Control-Expose-Headers: ETag\r\nVary: Origin\r\n"
    }

    /// The headers of the 204 that answers a preflight from `origin`.
    static func preflightFields(origin: String) -> HTTPFields {
        var fields = answerFields(origin: origin)
        fields[.accessControlAllowMethods] = allowedMethods
        fields[.accessControlAllowHeaders] = allowedHeaders
        fields[.accessControlMaxAge] = maxAge
        return fields
    }

    /// Whether `path` is a client route's: `/v1/projects/{p}/remoteConfig:fetch` or `:stream`, or
    /// `/ofrep/v1/evaluate/flags[/{key}]`.
    static func isClientPath(_ path: some StringProtocol) -> Bool {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        // A leading "/" makes an empty first segment.
        guard segments.first?.isEmpty == true else { return false }
        let parts = segments.dropFirst()
        if parts.count == 4, parts.prefix(2).elementsEqual(ClientPaths.projects.split(separator: "/"), by: { $0 == $1 })
        {
            let last = parts.last!
            return !parts.dropFirst(2).first!.isEmpty
                && (last == ClientPaths.fetchSuffix.dropFirst() || last == ClientPaths.streamSuffix.dropFirst())
        }
        let ofrep = ClientPaths.ofrepFlags.split(separator: "/")
        guard parts.count == 4 || parts.count == 5, parts.prefix(4).elementsEqual(ofrep, by: { $0 == $1 }) else {
            return false
        }
        return parts.count == 4 || !parts.last!.isEmpty
    }
}
