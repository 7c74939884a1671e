import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigCore
import RemoteConfigStore

/// What to answer a client call: status, headers and body (none for a 304).
struct FetchReply: Sendable {
    var status: HTTPResponse.Status
    /// The headers, unless they are those of a remembered fetch answer (`answer`).
    var fields: HTTPFields = [:]
    var body: ByteBuffer?
    /// More of the body after `body`: the front writes both parts into its one output buffer rather than
    /// joining them first (an OFREP bulk answer's remembered flags, then this caller's stream URL).
    var bodyTail: ByteBuffer? = nil
    /// The fetch answer, for a 200 or 304: its state (for `rc_fetches_total`) and its pre-rendered head.
    var answer: FetchAnswers.Answer?
    /// The status line and `fields` as they go on the wire, rendered once per remembered answer rather than
    /// per request (without `Content-Length`).
    var renderedFields: ByteBuffer? = nil
    /// The status line and headers with `Content-Length`, when rendered in advance (a remembered answer's).
    var renderedHead: ByteBuffer? = nil
    /// `body` is a remembered answer's gzip form.
    var gzip = false

    /// The response headers (without `Content-Length`).
    var headers: HTTPFields { answer?.headers(notModified: status == .notModified, gzip: gzip) ?? fields }

    /// The whole body, its parts joined.
    var fullBody: ByteBuffer {
        guard var joined = body else { return bodyTail ?? ByteBuffer() }
        if let bodyTail { joined.writeImmutableBuffer(bodyTail) }
        return joined
    }
}
