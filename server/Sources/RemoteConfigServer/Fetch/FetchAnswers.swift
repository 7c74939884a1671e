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
    static let noTemplate: Answer = {
        let entries = Array("{}".utf8)
        var body = ByteBuffer(string: #"{"entries":"#)
        body.writeBytes(entries)
        body.writeBytes(tail(state: .noTemplate, templateVersion: nil))
        let tag = entries.withUnsafeBytes { FetchAnswers.etag(state: .noTemplate, entries: $0) }
        return Answer(Encoding(state: .noTemplate, etag: tag, body: body), tally: .empty)
    }()
    /// At most this many signatures are remembered per template (see `AnswersBySignature`).
    static let capacity = AnswersBySignature<Answer>.capacity
    /// Above this `evaluationCost`, evaluating a caller is kept off the event loops (see `HeavyWork`).
    static let heavyCost = 4_000

    let compiled: CompiledTemplate
    private let bySignature: AnswersBySignature<Answer>
    /// The encodings the remembered answers hold, each once.
    private let encodings: SharedEncodings

    /// The answers of `compiled`, remembered within the process's budget.
    convenience init(_ compiled: CompiledTemplate) { self.init(compiled, budget: .answers) }

    /// The answers of `compiled`, remembered within `budget`.
    init(_ compiled: CompiledTemplate, budget: ByteBudget) {
        // The template's keys and values as JSON literals, in the places `forEachServed` names.
        let keys = JSONStrings(compiled.parameterKeys)
        let values = JSONStrings(compiled.servedValues)
        let encodings = SharedEncodings()
        self.compiled = compiled
        self.bySignature = AnswersBySignature(
            compiled, budget: budget,
            hold: { $0.ownBytes + (encodings.hold($0.encoding) ? $0.encoding.bytes : 0) },
            release: { $0.ownBytes + (encodings.release($0.encoding) ? $0.encoding.bytes : 0) },
            build: { FetchAnswers.encode($0, of: compiled, keys: keys, values: values, sharing: encodings) })
        self.encodings = encodings
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

    /// How many distinct encodings the remembered answers hold.
    var encodingCount: Int { encodings.count }

    /// The answer to callers with `signature`: its entries are copies of the template's literals.
    private static func encode(
        _ signature: MatchSignature, of compiled: CompiledTemplate, keys: JSONStrings, values: JSONStrings,
        sharing encodings: SharedEncodings
    ) -> Answer {
        // Which literals, then their length, then one buffer of that size and a copy each: the body is
        // written once, with no growing and no per-entry call into the buffer.
        var served: [Int32] = []
        served.reserveCapacity(2 * compiled.parameterKeys.count)
        var entriesLength = 2
        keys.withView { keys in
            values.withView { values in
                compiled.forEachServed(signature) { key, value in
                    served.append(Int32(key))
                    served.append(Int32(value))
                    entriesLength += keys.length(key) + values.length(value) + 2
                }
            }
        }
        if !served.isEmpty { entriesLength -= 1 }
        let state: FetchState = served.isEmpty ? .emptyConfig : .update
        let prefix = #"{"entries":"#
        let tail = tail(state: state, templateVersion: compiled.versionNumber)
        var body = ByteBuffer()
        body.reserveCapacity(prefix.utf8.count + entriesLength + tail.count)
        body.writeString(prefix)
        body.writeWithUnsafeMutableBytes(minimumWritableBytes: entriesLength) { output in
            keys.withView { keys in
                values.withView { values in
                    var cursor = output.baseAddress.unsafelyUnwrapped
                    cursor.storeBytes(of: UInt8(ascii: "{"), as: UInt8.self)
                    cursor += 1
                    for pair in stride(from: 0, to: served.count, by: 2) {
                        if pair > 0 {
                            cursor.storeBytes(of: UInt8(ascii: ","), as: UInt8.self)
                            cursor += 1
                        }
                        cursor += keys.copy(Int(served[pair]), to: cursor)
                        cursor.storeBytes(of: UInt8(ascii: ":"), as: UInt8.self)
                        cursor += 1
                        cursor += values.copy(Int(served[pair + 1]), to: cursor)
                    }
                    cursor.storeBytes(of: UInt8(ascii: "}"), as: UInt8.self)
                }
            }
            return entriesLength
        }
        let etag = body.withUnsafeReadableBytes { bytes -> String in
            Self.etag(state: state, entries: UnsafeRawBufferPointer(rebasing: bytes[prefix.utf8.count...]))
        }
        body.writeBytes(tail)
        let encoding = encodings.encoding(etag) { Encoding(state: state, etag: etag, body: body) }
        return Answer(encoding, tally: compiled.tally(signature))
    }

    /// The ETag of an answer whose entries object is `entries`: it depends only on what the caller receives
    /// (state and entries).
    private static func etag(state: FetchState, entries: UnsafeRawBufferPointer) -> String {
        var hasher = SHA256()
        hasher.update(data: Array(state.rawValue.utf8))
        hasher.update(bufferPointer: entries)
        var etag: [UInt8] = [UInt8(ascii: "\"")]
        for byte in hasher.finalize().prefix(16) {
            etag.append(Self.hexDigits[Int(byte >> 4)])
            etag.append(Self.hexDigits[Int(byte & 0x0F)])
        }
        etag.append(UInt8(ascii: "\""))
        return String(decoding: etag, as: UTF8.self)
    }

    /// What follows an answer's entries: its state and template version, and the closing brace.
    private static func tail(state: FetchState, templateVersion: String?) -> [UInt8] {
        var tail = Array(#","state":"#.utf8)
        JSONWriter.writeString(state.rawValue, into: &tail)
        if let version = templateVersion {
            tail += Array(#","templateVersion":"#.utf8)
            JSONWriter.writeString(version, into: &tail)
        }
        tail.append(UInt8(ascii: "}"))
        return tail
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
