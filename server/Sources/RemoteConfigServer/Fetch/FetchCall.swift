import Foundation
import NIOCore
import RemoteConfigCore
import RemoteConfigStore

/// One client call (fetch or OFREP), as either way in (the event-loop fast path or the router) hands it over.
struct FetchCall: Sendable {
    var route: ClientRoute
    /// `X-API-Key`.
    var apiKeyHeader: String?
    /// The token of `Authorization: Bearer …`: OFREP providers send the client key so.
    var bearerToken: String? = nil
    /// The query string (without `?`), which may carry `key=`.
    var query: Substring?
    var ifNoneMatch: String?
    /// `Accept-Encoding` allows gzip (`AcceptEncoding`): a long answer then goes in its gzip form.
    var acceptsGzip = false
    var body: ByteBuffer
    /// Where the caller reached this server, for the stream URL of an OFREP bulk answer.
    var origin = RequestOrigin()
}
