import Foundation
import HTTPTypes
import Hummingbird

/// ETags of settings that change by revision (webhooks, store links): `"<kind>-<name>-<revision>"`, and what an
/// `If-Match` asks of one.
///
/// These routes took writes without `If-Match` before they had ETags, so a write without one still goes through
/// (scripts written then keep working); one with an ETag is refused with 412 once that ETag is stale, and `*`
/// writes whatever is there, as for templates and drafts.
enum RevisionETag {
    /// The strong ETag of revision `revision` (0: none exists yet) of the `kind` named `name`.
    static func make(kind: String, name: String, revision: Int64) -> String { "\"\(kind)-\(name)-\(revision)\"" }

    /// The revision `If-Match` requires: nil without the header or with `*`; -1 for an ETag that is not one of
    /// this resource's (it matches nothing, so the write is a 412).
    static func expected(_ request: Request, kind: String, name: String) -> Int64? {
        guard case .tag(let tag) = IfMatch(request) else { return nil }
        let prefix = "\(kind)-\(name)-"
        guard tag.hasPrefix(prefix), let revision = Int64(tag.dropFirst(prefix.count)) else { return -1 }
        return revision
    }

    /// A JSON answer with the ETag of the revision it shows.
    static func response(_ body: some Encodable, etag: String, status: HTTPResponse.Status = .ok) throws -> Response {
        var headers = HTTPFields()
        headers[.eTag] = etag
        return try JSONResponse.make(body, status: status, headers: headers)
    }
}
