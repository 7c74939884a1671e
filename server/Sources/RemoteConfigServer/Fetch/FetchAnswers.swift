import Crypto
import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigCore

/// The fetch answers of one published template, by `MatchSignature` (`AnswersBySignature`, within the
/// process's `ByteBudget`): entries, JSON, gzip form and SHA-256 are built once per signature, and a fetch,
/// whether answered 200 or 304, is an evaluation of the conditions and a lookup.
final class FetchAnswers: Sendable {
    /// One answer, ready to write, plain and gzipped; a class, so that handing it on per request costs one
    /// reference count rather than one per buffer.
    final class Answer: Sendable {
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
        /// What this answer counts for in insights.
        let tally: AnswerTally

        /// About how many bytes this answer holds (`ByteBudget`): its buffers' storage, its tally, and the
        /// objects around them.
        let bytes: Int

        init(state: FetchState, etag: String, body: ByteBuffer, tally: AnswerTally = .empty) {
            self.state = state
            self.tally = tally
            self.etag = etag
            let gzipBody =
                body.readableBytes >= GzipPrefix.minimumLength ? GzipPrefix(body).map { $0.member() } : nil
            let varies = gzipBody != nil
            let okHead = Self.render(
                "200 OK", Self.headers(etag: etag, notModified: false, varies: varies, gzip: false), length: body)
            let gzipOkHead = gzipBody.map {
                Self.render(
                    "200 OK", Self.headers(etag: etag, notModified: false, varies: true, gzip: true), length: $0)
            }
            let notModifiedHead = Self.render(
                "304 Not Modified", Self.headers(etag: etag, notModified: true, varies: varies, gzip: false),
                length: nil)
            self.body = body
            self.gzipBody = gzipBody
            self.okHead = okHead
            self.gzipOkHead = gzipOkHead
            self.notModifiedHead = notModifiedHead
            // Buffers by their capacity (NIO allocates powers of two), and 1 KiB for the objects around them
            // (this answer, its buffers' storage objects, its ETag, its entry in the table): what the allocator
            // held for the realistic template's answers was 6.4 KB each, against 5.5 KB counted with 256 bytes.
            bytes =
                [body, gzipBody, okHead, gzipOkHead, notModifiedHead].reduce(0) { $0 + ($1?.capacity ?? 0) }
                + etag.utf8.count + tally.bytes + 1_024
        }

        /// The headers of this answer's 200 or 304 (without `Content-Length`).
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

        private static func render(_ status: String, _ fields: HTTPFields, length body: ByteBuffer?) -> ByteBuffer {
            var head = ByteBuffer(string: "HTTP/1.1 \(status)\r\n")
            for field in fields { head.writeString("\(field.name.rawName): \(field.value)\r\n") }
            if let body { head.writeString("Content-Length: \(body.readableBytes)\r\n") }
            return head
        }
    }

    /// The answer before anything is published.
    static let noTemplate = encode(.noTemplate)
    /// At most this many signatures are remembered per template (see `AnswersBySignature`).
    static let capacity = AnswersBySignature<Answer>.capacity
    /// Above this `evaluationCost`, evaluating a caller is kept off the event loops (see `HeavyWork`).
    static let heavyCost = 4_000

    let compiled: CompiledTemplate
    private let bySignature: AnswersBySignature<Answer>

    /// The answers of `compiled`, remembered within the process's budget.
    convenience init(_ compiled: CompiledTemplate) { self.init(compiled, budget: .answers) }

    /// The answers of `compiled`, remembered within `budget`.
    init(_ compiled: CompiledTemplate, budget: ByteBudget) {
        self.compiled = compiled
        self.bySignature = AnswersBySignature(compiled, budget: budget, weigh: \.bytes) { signature in
            FetchAnswers.encode(compiled.resolve(signature), tally: compiled.tally(signature))
        }
    }

    /// Whether evaluating one caller may take long enough to stall other connections.
    var isHeavy: Bool { Self.isHeavy(compiled) }

    /// Whether a caller's first answer from `compiled` may take long enough to stall other connections: its
    /// conditions are costly, or its answers long (each is encoded and gzipped when first made).
    static func isHeavy(_ compiled: CompiledTemplate) -> Bool {
        compiled.evaluationCost > heavyCost || compiled.servedBytes > HeavyWork.inlineLimit
    }

    /// The answer for `context`.
    func answer(for context: FetchContext) -> Answer { bySignature.answer(for: context) }

    /// The answers remembered by signature now, and about how many bytes they hold.
    var remembered: (count: Int, bytes: Int) { bySignature.remembered }

    /// The body bytes and the ETag, which depends only on what this caller receives (state and entries).
    static func encode(_ result: FetchResult, tally: AnswerTally = .empty) -> Answer {
        var entries: [UInt8] = [UInt8(ascii: "{")]
        for (index, entry) in result.entries.enumerated() {
            if index > 0 { entries.append(UInt8(ascii: ",")) }
            JSONWriter.writeString(entry.key, into: &entries)
            entries.append(UInt8(ascii: ":"))
            JSONWriter.writeString(entry.value, into: &entries)
        }
        entries.append(UInt8(ascii: "}"))

        var hasher = SHA256()
        hasher.update(data: Array(result.state.rawValue.utf8))
        hasher.update(data: entries)
        var etag: [UInt8] = [UInt8(ascii: "\"")]
        for byte in hasher.finalize().prefix(16) {
            etag.append(Self.hexDigits[Int(byte >> 4)])
            etag.append(Self.hexDigits[Int(byte & 0x0F)])
        }
        etag.append(UInt8(ascii: "\""))

        var body = ByteBuffer()
        body.writeString(#"{"entries":"#)
        body.writeBytes(entries)
        body.writeString(#","state":"#)
        var tail: [UInt8] = []
        JSONWriter.writeString(result.state.rawValue, into: &tail)
        if let version = result.templateVersion {
            tail += Array(#","templateVersion":"#.utf8)
            JSONWriter.writeString(version, into: &tail)
        }
        tail.append(UInt8(ascii: "}"))
        body.writeBytes(tail)
        return Answer(state: result.state, etag: String(decoding: etag, as: UTF8.self), body: body, tally: tally)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Whether an `If-None-Match` list names `etag` (or is `*`).
    static func matches(_ header: String, _ etag: String) -> Bool {
        if header == etag { return true }
        return header.split(separator: ",").contains { candidate in
            var tag = candidate.drop { $0 == " " || $0 == "\t" }
            while let last = tag.last, last == " " || last == "\t" { tag = tag.dropLast() }
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            return tag == etag || tag == "*"
        }
    }
}
