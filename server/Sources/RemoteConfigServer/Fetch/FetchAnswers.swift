import Crypto
import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigCore

/// The fetch answers of one published template, by `MatchSignature` (`AnswersBySignature`, within the
/// process's `ByteBudget`): entries, JSON and SHA-256 are built once per signature, the gzip form once per
/// answer bytes (`SharedEncodings`), and a fetch, whether answered 200 or 304, is an evaluation of the
/// conditions and a lookup.
final class FetchAnswers: Sendable {
    /// The answer before anything is published.
    static let noTemplate = Answer(
        Encoding(
            state: .noTemplate, etag: etag(state: .noTemplate, entries: Array("{}".utf8)),
            body: body(state: .noTemplate, entries: Array("{}".utf8), templateVersion: nil)),
        tally: .empty)
    /// At most this many signatures are remembered per template (see `AnswersBySignature`).
    static let capacity = AnswersBySignature<Answer>.capacity
    /// Above this `evaluationCost`, evaluating a caller is kept off the event loops (see `HeavyWork`).
    static let heavyCost = 4_000

    let compiled: CompiledTemplate
    private let bySignature: AnswersBySignature<Answer>
    /// The template's keys and values as JSON literals, in the places `forEachServed` names.
    private let keys: JSONStrings
    private let values: JSONStrings

    /// The answers of `compiled`, remembered within the process's budget.
    convenience init(_ compiled: CompiledTemplate) { self.init(compiled, budget: .answers) }

    /// The answers of `compiled`, remembered within `budget`.
    init(_ compiled: CompiledTemplate, budget: ByteBudget) {
        let keys = JSONStrings(compiled.parameterKeys)
        let values = JSONStrings(compiled.servedValues)
        let encodings = SharedEncodings()
        self.compiled = compiled
        self.keys = keys
        self.values = values
        self.bySignature = AnswersBySignature(compiled, budget: budget, weigh: \.bytes) { signature in
            FetchAnswers.encode(signature, of: compiled, keys: keys, values: values, sharing: encodings)
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

    /// The answer to callers with `signature`: its entries are copies of the template's literals.
    private static func encode(
        _ signature: MatchSignature, of compiled: CompiledTemplate, keys: JSONStrings, values: JSONStrings,
        sharing encodings: SharedEncodings
    ) -> Answer {
        var entries: [UInt8] = [UInt8(ascii: "{")]
        keys.withView { keys in
            values.withView { values in
                compiled.forEachServed(signature) { key, value in
                    if entries.count > 1 { entries.append(UInt8(ascii: ",")) }
                    keys.append(key, to: &entries)
                    entries.append(UInt8(ascii: ":"))
                    values.append(value, to: &entries)
                }
            }
        }
        entries.append(UInt8(ascii: "}"))
        let state: FetchState = entries.count > 2 ? .update : .emptyConfig
        let etag = etag(state: state, entries: entries)
        let encoding = encodings.encoding(etag) {
            Encoding(
                state: state, etag: etag,
                body: body(state: state, entries: entries, templateVersion: compiled.versionNumber))
        }
        return Answer(encoding, tally: compiled.tally(signature))
    }

    /// The ETag of an answer whose entries object is `entries`: it depends only on what the caller receives
    /// (state and entries).
    private static func etag(state: FetchState, entries: [UInt8]) -> String {
        var hasher = SHA256()
        hasher.update(data: Array(state.rawValue.utf8))
        hasher.update(data: entries)
        var etag: [UInt8] = [UInt8(ascii: "\"")]
        for byte in hasher.finalize().prefix(16) {
            etag.append(Self.hexDigits[Int(byte >> 4)])
            etag.append(Self.hexDigits[Int(byte & 0x0F)])
        }
        etag.append(UInt8(ascii: "\""))
        return String(decoding: etag, as: UTF8.self)
    }

    /// The JSON body of an answer whose entries object is `entries`.
    private static func body(state: FetchState, entries: [UInt8], templateVersion: String?) -> ByteBuffer {
        var body = ByteBuffer()
        body.reserveCapacity(entries.count + 64)
        body.writeString(#"{"entries":"#)
        body.writeBytes(entries)
        body.writeString(#","state":"#)
        var tail: [UInt8] = []
        JSONWriter.writeString(state.rawValue, into: &tail)
        if let version = templateVersion {
            tail += Array(#","templateVersion":"#.utf8)
            JSONWriter.writeString(version, into: &tail)
        }
        tail.append(UInt8(ascii: "}"))
        body.writeBytes(tail)
        return body
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
