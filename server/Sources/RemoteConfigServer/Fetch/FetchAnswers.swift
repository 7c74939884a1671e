import Crypto
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import RemoteConfigCore

/// The fetch answers of one published template, remembered by `MatchSignature`.
///
/// A fetch answer depends only on which of the template's conditions select the caller, so every caller
/// with the same signature gets the same bytes and ETag: those are built (entries, JSON, SHA-256) once,
/// and a fetch, whether answered 200 or 304, is an evaluation of the conditions and a lookup.
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
    /// At most this many signatures are remembered per template; a template whose callers differ more
    /// than that starts again rather than growing without bound.
    static let capacity = 10_000
    /// Above this `evaluationCost`, evaluating a caller is kept off the event loops (see `HeavyWork`).
    static let heavyCost = 4_000

    /// At most this many request bodies are remembered per template (see `rememberedAnswer(body:now:)`).
    static let bodyCapacity = 4_096
    /// Bodies longer than this are not remembered (the memory would outweigh the saving).
    static let bodyLimit = 2_048

    let compiled: CompiledTemplate
    private let answers = NIOLockedValueBox<[MatchSignature: Answer]>([:])
    /// Answers by the exact bytes of the request body, each valid until the template's next time boundary.
    private let byBody = NIOLockedValueBox<[ByteBuffer: (answer: Answer, validUntil: Double)]>([:])

    init(_ compiled: CompiledTemplate) {
        self.compiled = compiled
    }

    /// Whether evaluating one caller may take long enough to stall other connections.
    var isHeavy: Bool { compiled.evaluationCost > Self.heavyCost }

    /// The answer for `context`.
    func answer(for context: FetchContext) -> Answer {
        let signature = compiled.signature(for: context)
        if let answer = answers.withLockedValue({ $0[signature] }) { return answer }
        let answer = Self.encode(compiled.resolve(signature))
        answers.withLockedValue { answers in
            if answers.count >= Self.capacity { answers.removeAll(keepingCapacity: true) }
            answers[signature] = answer
        }
        return answer
    }

    /// The answer for a request body seen before, without parsing or evaluating it again: an app sends the
    /// same bytes on every launch and foreground, and its 304s then cost a hash and a lookup. The body was
    /// valid when remembered, and the answer depends on nothing else but the clock, which only `dateTime`
    /// conditions read: an entry lasts until the template's next time boundary.
    func rememberedAnswer(body: ByteBuffer, now: Date) -> Answer? {
        guard body.readableBytes <= Self.bodyLimit, let entry = byBody.withLockedValue({ $0[body] }) else {
            return nil
        }
        return now.timeIntervalSince1970 < entry.validUntil ? entry.answer : nil
    }

    /// Remembers `answer` for a valid request `body` evaluated at `now`.
    func remember(body: ByteBuffer, answer: Answer, now: Date) {
        guard body.readableBytes <= Self.bodyLimit else { return }
        let validUntil =
            compiled.inputs.timeBoundaries.first { $0 > now }?.timeIntervalSince1970 ?? .infinity
        // A copy: the request's bytes are a slice of the connection's buffer, which must not be kept alive.
        let key = ByteBuffer(bytes: body.readableBytesView)
        byBody.withLockedValue { entries in
            if entries.count >= Self.bodyCapacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = (answer, validUntil)
        }
    }

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
