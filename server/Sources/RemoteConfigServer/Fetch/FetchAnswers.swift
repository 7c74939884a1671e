import Crypto
import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigCore

/// The fetch answers of one published template, remembered by `MatchSignature` and by request body
/// (`AnswerMemo`): entries, JSON and SHA-256 are built once per signature, and a fetch, whether answered 200
/// or 304, is an evaluation of the conditions and a lookup.
final class FetchAnswers: Sendable {
    /// One answer, ready to write.
    struct Answer: Sendable {
        let state: FetchState
        /// Quoted, strong.
        let etag: String
        /// The JSON body of a 200.
        let body: ByteBuffer
        /// The status line and headers of a 200 and of a 304, rendered once: the front writes them as they
        /// are, followed by the request id (see `headers(notModified:)` for the same fields as `HTTPFields`).
        let okHead: ByteBuffer
        let notModifiedHead: ByteBuffer

        init(state: FetchState, etag: String, body: ByteBuffer) {
            self.state = state
            self.etag = etag
            self.body = body
            var okHead = ByteBuffer()
            okHead.writeString("HTTP/1.1 200 OK\r\n")
            for field in Self.headers(etag: etag, notModified: false) {
                okHead.writeString("\(field.name.rawName): \(field.value)\r\n")
            }
            okHead.writeString("Content-Length: \(body.readableBytes)\r\n")
            var notModifiedHead = ByteBuffer()
            notModifiedHead.writeString("HTTP/1.1 304 Not Modified\r\n")
            for field in Self.headers(etag: etag, notModified: true) {
                notModifiedHead.writeString("\(field.name.rawName): \(field.value)\r\n")
            }
            self.okHead = okHead
            self.notModifiedHead = notModifiedHead
        }

        /// The headers of this answer's 200 or 304 (without `Content-Length`).
        func headers(notModified: Bool) -> HTTPFields { Self.headers(etag: etag, notModified: notModified) }

        private static func headers(etag: String, notModified: Bool) -> HTTPFields {
            var headers: HTTPFields = [.eTag: etag, .cacheControl: "private, no-cache"]
            if !notModified { headers[.contentType] = "application/json; charset=utf-8" }
            return headers
        }
    }

    /// The answer before anything is published.
    static let noTemplate = encode(.noTemplate)
    /// At most this many signatures are remembered per template (see `AnswerMemo`).
    static let capacity = AnswerMemo<Answer>.capacity
    /// Above this `evaluationCost`, evaluating a caller is kept off the event loops (see `HeavyWork`).
    static let heavyCost = 4_000
    /// At most this many request bodies are remembered per template.
    static let bodyCapacity = AnswerMemo<Answer>.bodyCapacity
    /// Bodies longer than this are not remembered (the memory would outweigh the saving).
    static let bodyLimit = AnswerMemo<Answer>.bodyLimit

    let compiled: CompiledTemplate
    private let memo: AnswerMemo<Answer>

    init(_ compiled: CompiledTemplate) {
        self.compiled = compiled
        self.memo = AnswerMemo(compiled) { signature in FetchAnswers.encode(compiled.resolve(signature)) }
    }

    /// Whether evaluating one caller may take long enough to stall other connections.
    var isHeavy: Bool { compiled.evaluationCost > Self.heavyCost }

    /// The answer for `context`.
    func answer(for context: FetchContext) -> Answer { memo.answer(for: context) }

    /// The answer for a request body seen before, without parsing or evaluating it again (see `AnswerMemo`).
    func rememberedAnswer(body: ByteBuffer, now: Date) -> Answer? { memo.rememberedAnswer(body: body, now: now) }

    /// Remembers `answer` for a valid request `body` evaluated at `now`.
    func remember(body: ByteBuffer, answer: Answer, now: Date) { memo.remember(body: body, answer: answer, now: now) }

    /// The body bytes and the ETag, which depends only on what this caller receives (state and entries).
    static func encode(_ result: FetchResult) -> Answer {
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
        return Answer(state: result.state, etag: String(decoding: etag, as: UTF8.self), body: body)
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
