import HTTPTypes

/// `Authorization: Bearer <token>` (the scheme in any case, RFC 6750), read one way for every route that takes
/// a token: the admin API, OFREP's client calls, the rollout halt hook.
enum BearerToken {
    /// The token of an `Authorization` value, or nil when it is not `Bearer <token>`. Read from the head's
    /// bytes on every OFREP call, so it makes one string and nothing else.
    static func token(_ authorization: some HeadBytes) -> String? {
        guard authorization.hasPrefixIgnoringCase("bearer ") else { return nil }
        let token = authorization.dropFirst(7).trimmingWhitespace
        return token.isEmpty ? nil : String(decoding: token, as: UTF8.self)
    }

    /// The token of an `Authorization` field's value, or nil when it is not `Bearer <token>`.
    static func token(_ authorization: String) -> String? {
        token(Array(authorization.utf8)[...])
    }
}
