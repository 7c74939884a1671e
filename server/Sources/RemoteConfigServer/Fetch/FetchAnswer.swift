import HTTPTypes
import NIOCore
import RemoteConfigCore

extension FetchAnswers {
    /// One answer, ready to write, plain and gzipped; a class, so that handing it on per request costs one
    /// reference count rather than one per buffer.
    ///
    /// Its bytes are an `Encoding`, which every signature whose callers receive the same entries shares:
    /// conditions that decide no parameter for a caller split signatures without changing the bytes, and the
    /// gzip form is made once for the bytes, not once per signature. What the answer counts for in insights
    /// (`tally`: which conditions matched) stays the signature's own.
    final class Answer: Sendable {
        let encoding: Encoding
        /// What this answer counts for in insights.
        let tally: AnswerTally
        /// About how many bytes this answer holds of its own (`ByteBudget`): its tally and the objects around it;
        /// its encoding counts once for every answer that shares it (`SharedEncodings`).
        let ownBytes: Int
        /// What this answer holds when it shares its encoding with no other.
        var bytes: Int { ownBytes + encoding.bytes }

        init(_ encoding: Encoding, tally: AnswerTally) {
            self.encoding = encoding
            self.tally = tally
            // The answer object, its entry in the table of signatures, and a signature of a few words.
            ownBytes = tally.bytes + 256
        }

        var state: FetchState { encoding.state }
        var etag: String { encoding.etag }
        var body: ByteBuffer { encoding.body }
        var gzipBody: ByteBuffer? { encoding.gzipBody }
        var okHead: ByteBuffer { encoding.okHead }
        var gzipOkHead: ByteBuffer? { encoding.gzipOkHead }
        var notModifiedHead: ByteBuffer { encoding.notModifiedHead }

        /// The headers of this answer's 200 or 304 (without `Content-Length`).
        func headers(notModified: Bool, gzip: Bool) -> HTTPFields {
            encoding.headers(notModified: notModified, gzip: gzip)
        }
    }

    /// The bytes of an answer, plain and gzipped, with its heads: what callers receive, whoever they are.
    final class Encoding: Sendable {
        let state: FetchState
        /// Quoted, strong. It names the answer (state and entries), not its encoding: the plain and the gzip
        /// form share it, so a client keeps its 304s whatever it accepts.
        let etag: String
        /// The JSON body of a 200.
        let body: ByteBuffer
        /// The same body gzipped (`GzipPrefix`), for callers that accept it; nil when it is too short to gain.
        let gzipBody: ByteBuffer?
        /// The status line and headers of a 200 (plain and gzipped) and of a 304, rendered once: the front
        /// writes them as they are, followed by the request id (`headers(notModified:gzip:)` gives the same
        /// fields as `HTTPFields`).
        let okHead: ByteBuffer
        let gzipOkHead: ByteBuffer?
        let notModifiedHead: ByteBuffer
        /// About how many bytes this encoding holds: its buffers' storage and the objects around them.
        let bytes: Int

        init(state: FetchState, etag: String, body: ByteBuffer) {
            self.state = state
            self.etag = etag
            let gzipBody =
                body.readableBytes >= GzipPrefix.minimumLength ? GzipPrefix(body).map { $0.member() } : nil
            let varies = gzipBody != nil
            let okHead = Self.head("200 OK", etag: etag, varies: varies, gzip: false, length: body.readableBytes)
            let gzipOkHead = gzipBody.map {
                Self.head("200 OK", etag: etag, varies: true, gzip: true, length: $0.readableBytes)
            }
            let notModifiedHead = Self.head("304 Not Modified", etag: etag, varies: varies, gzip: false, length: nil)
            self.body = body
            self.gzipBody = gzipBody
            self.okHead = okHead
            self.gzipOkHead = gzipOkHead
            self.notModifiedHead = notModifiedHead
            // Buffers by their capacity (NIO allocates powers of two), and 768 bytes for the objects around
            // them (this encoding, its buffers' storage objects, the ETag, its entry among the shared ones);
            // with the answer's own 256, what the allocator held for the realistic template's answers was
            // 6.4 KB each, against 5.5 KB counted with 256 bytes in all.
            bytes =
                [body, gzipBody, okHead, gzipOkHead, notModifiedHead].reduce(0) { $0 + ($1?.capacity ?? 0) }
                + etag.utf8.count + 768
        }

        /// The headers of this encoding's 200 or 304 (without `Content-Length`).
        func headers(notModified: Bool, gzip: Bool) -> HTTPFields {
            Self.headers(etag: etag, notModified: notModified, varies: gzipBody != nil, gzip: gzip && !notModified)
        }

        private static func headers(etag: String, notModified: Bool, varies: Bool, gzip: Bool) -> HTTPFields {
            var headers: HTTPFields = [.eTag: etag, .cacheControl: "private, no-cache"]
            if varies { headers[.vary] = "Accept-Encoding" }
            if !notModified { headers[.contentType] = "application/json; charset=utf-8" }
            if gzip { headers[.contentEncoding] = "gzip" }
            return headers
        }

        /// The status line and the fields of `headers(etag:notModified:varies:gzip:)`, in its order, with the
        /// length of a 200: written as bytes, as an answer nobody had before is made while its caller waits.
        private static func head(_ status: String, etag: String, varies: Bool, gzip: Bool, length: Int?)
            -> ByteBuffer
        {
            var head = ByteBuffer()
            head.reserveCapacity(224)
            head.writeString("HTTP/1.1 ")
            head.writeString(status)
            head.writeString("\r\nETag: ")
            head.writeString(etag)
            head.writeString("\r\nCache-Control: private, no-cache\r\n")
            if varies { head.writeString("Vary: Accept-Encoding\r\n") }
            if let length {
                head.writeString("Content-Type: application/json; charset=utf-8\r\n")
                if gzip { head.writeString("Content-Encoding: gzip\r\n") }
                head.writeString("Content-Length: ")
                head.writeString(String(length))
                head.writeString("\r\n")
            }
            return head
        }
    }
}
