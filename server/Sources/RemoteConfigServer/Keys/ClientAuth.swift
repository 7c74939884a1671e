import HTTPTypes

/// The client-key rules of the client routes (fetch, OFREP, stream) and their error answers, defined once.
enum ClientAuth {
    /// 401: a fetch or a stream came without a key.
    static let missingKey = APIError.unauthenticated(
        "missing client key: send \(HTTPField.Name.apiKey.rawName) or ?key=")
    /// 401: an OFREP call came without a key.
    static let missingOFREPKey = APIError.unauthenticated(
        "missing client key: send Authorization: Bearer or \(HTTPField.Name.apiKey.rawName)")
    /// 401: no active key has this secret.
    static let invalidKey = APIError.unauthenticated("the client key is not valid or was revoked")
    /// 403: an admin key on a client route.
    static let notClientKey = APIError.permissionDenied(
        "this route takes a client key; admin keys go in Authorization")
    /// 403: another project's client key.
    static let otherProject = APIError.permissionDenied("the client key belongs to another project")

    /// The key a client call sends, the one rule for every client route and either way in (the fronts and
    /// the router): the first that is present and not empty of `X-API-Key`, the `Authorization: Bearer` token
    /// (OFREP's routes take one; nil elsewhere) and the path's `?key=`. An empty header counts as none, so
    /// `X-API-Key:` with `?key=K` is `K` on a fetch as on a stream.
    static func secret(
        header: String?, bearer: String? = nil, query: @autoclosure () -> String?
    ) -> String? {
        if let header, !header.isEmpty { return header }
        if let bearer, !bearer.isEmpty { return bearer }
        guard let key = query(), !key.isEmpty else { return nil }
        return key
    }

    /// Throws unless `key` is a client key of `project`.
    static func check(_ key: ClientKeys.Key, project: some StringProtocol) throws(APIError) {
        guard key.role == .client else { throw notClientKey }
        guard let owner = key.project, owner.utf8.elementsEqual(project.utf8) else { throw otherProject }
    }
}
