import HTTPTypes

/// Where a caller reached this server: what an OFREP bulk answer's stream URL is built from.
struct RequestOrigin: Sendable, Equatable {
    /// `Host`.
    var host: String?
    /// `X-Forwarded-Host`, set by a proxy in front of this server.
    var forwardedHost: String?
    /// `X-Forwarded-Proto` (`https` behind a proxy that ends TLS).
    var forwardedProto: String?
}

extension HTTPField.Name {
    static let forwardedHost = Self("X-Forwarded-Host")!
    static let forwardedProto = Self("X-Forwarded-Proto")!
}
