import RemoteConfigAPI
import RemoteConfigCore

/// `/v1/projects/{p}/storeSync/googlePlay`.
extension AdminClient {
    private static func googlePlay(_ project: String) -> String {
        "/v1/projects/\(escape(project))/storeSync/googlePlay"
    }

    /// `GET …/storeSync/googlePlay`: the link (never its key) and the ETag a `PUT` sends back.
    public func googlePlayLink(project: String) async throws -> (link: GooglePlayLink, etag: String) {
        let response = try await call("GET", Self.googlePlay(project))
        return (try response.decode(GooglePlayLink.self), response.headers["etag"] ?? "*")
    }

    /// `PUT …/storeSync/googlePlay` with `body` as it is (a key file goes in unchanged), `If-Match: etag`.
    public func setGooglePlayLink(project: String, _ body: JSONValue, etag: String) async throws -> GooglePlayLink {
        try await call(
            "PUT", Self.googlePlay(project), body: Array(body.jsonString.utf8), headers: ["If-Match": etag]
        ).decode(GooglePlayLink.self)
    }

    /// `POST …/storeSync/googlePlay:run`: syncs now and answers the status with what the sync did.
    public func runGooglePlayLink(project: String) async throws -> GooglePlayLink {
        try await call("POST", Self.googlePlay(project) + ":run").decode(GooglePlayLink.self)
    }

    /// `DELETE …/storeSync/googlePlay`.
    public func deleteGooglePlayLink(project: String) async throws {
        _ = try await call("DELETE", Self.googlePlay(project))
    }
}
