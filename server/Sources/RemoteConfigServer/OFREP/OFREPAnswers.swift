import Crypto
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import RemoteConfigCore

/// The OFREP evaluations of one published template, built like fetch answers (`AnswersBySignature`): per
/// caller signature, the bulk body with every flag item in place, its ETag, and where each item lies in it,
/// so that a single-flag evaluation is a slice of the same bytes (plus the template version, which a bulk
/// answer carries once) and can never disagree with the bulk one.
final class OFREPAnswers: Sendable {
    /// One signature's evaluation, ready to write; a class, so that handing it on per request costs one
    /// reference count rather than one per buffer.
    final class Answer: Sendable {
        /// Bytes of `{"flags":[…],"metadata":{…}` (without the closing brace) at the start of every bulk body:
        /// a bulk answer adds its `eventStreams`.
        let flagsLength: Int
        /// The gzip form of those bytes (`GzipPrefix`), at the start of every gzip bulk body: its length and
        /// the flags' CRC-32. nil when the flags are too short to gain from it.
        let gzipFlags: (length: Int, crc: UInt32)?
        /// Quoted, strong; from what the caller receives (each flag's key, value, reason, variant and type),
        /// not from the template version, so it stays the same across publishes that change nothing for
        /// this caller (as a fetch's ETag does).
        let etag: String
        /// Each parameter's item in `bulkHead` (reader offset and length), in serving order, without its
        /// closing `}}`: a single-flag answer adds `singleTail`.
        let items: [(offset: Int, length: Int)]
        /// The end of a single-flag answer: the template version in the flag's metadata (a bulk answer has it
        /// once, in its own metadata), and the closing braces.
        let singleTail: ByteBuffer
        /// The headers of a bulk 200 (plain and gzipped) and 304, as fields and rendered once (without
        /// `Content-Length`). The ETag names the evaluation, not its encoding, as a fetch's does.
        let okFields: HTTPFields
        let gzipOkFields: HTTPFields
        let notModifiedFields: HTTPFields
        let okHead: ByteBuffer
        let gzipOkHead: ByteBuffer
        let notModifiedHead: ByteBuffer

        /// What this evaluation counts for in insights.
        let tally: AnswerTally

        init(
            bulkHead: ByteBuffer, etag: String, items: [(offset: Int, length: Int)], singleTail: ByteBuffer,
            tally: AnswerTally = .empty
        ) {
            self.tally = tally
            self.flagsLength = bulkHead.readableBytes
            self.etag = etag
            self.items = items
            self.singleTail = singleTail
            let gzip = bulkHead.readableBytes >= GzipPrefix.minimumLength ? GzipPrefix(bulkHead) : nil
            gzipFlags = gzip.map { ($0.deflated.readableBytes, $0.crc) }
            var notModified: HTTPFields = [.eTag: etag, .cacheControl: "private, no-cache"]
            if gzip != nil { notModified[.vary] = "Accept-Encoding" }
            notModifiedFields = notModified
            var ok = notModifiedFields
            ok[.contentType] = "application/json; charset=utf-8"
            okFields = ok
            ok[.contentEncoding] = "gzip"
            gzipOkFields = ok
            okHead = Self.render("200 OK", okFields)
            gzipOkHead = Self.render("200 OK", gzipOkFields)
            notModifiedHead = Self.render("304 Not Modified", notModifiedFields)
            lastBulk = NIOLockedValueBox(
                Bulk(origin: RequestOrigin(), secret: nil, body: bulkHead, head: okHead, gzip: gzip?.deflated))
        }

        /// A bulk 200 as callers reaching this server at one `origin` with one client key get it: the body with
        /// its stream URL, and the head with its length.
        final class Bulk: Sendable {
            let origin: RequestOrigin
            /// nil before any bulk answer was made: `body` is then the flags alone and `head` has no length,
            /// and no caller matches it (every caller has a key).
            let secret: String?
            let body: ByteBuffer
            let head: ByteBuffer
            /// The same body gzipped, and its head; nil when the flags are not compressed (`gzipFlags`). Before
            /// any bulk answer was made, the compressed flags alone and no head.
            let gzipBody: ByteBuffer?
            let gzipHead: ByteBuffer?

            init(
                origin: RequestOrigin, secret: String?, body: ByteBuffer, head: ByteBuffer, gzip: ByteBuffer?,
                gzipHead: ByteBuffer? = nil
            ) {
                self.origin = origin
                self.secret = secret
                self.body = body
                self.head = head
                self.gzipBody = gzip
                self.gzipHead = gzipHead
            }
        }

        /// The last bulk 200 made from this evaluation. Nearly every caller of a project reaches the server
        /// through one host with the app's one client key, so the next caller nearly always gets these very
        /// bytes, made once rather than per request. Its body is also where the flags are kept (`bulkHead`),
        /// so that they are held once.
        private let lastBulk: NIOLockedValueBox<Bulk>

        /// `{"flags":[…],"metadata":{…}` without the closing brace.
        var bulkHead: ByteBuffer {
            let body = lastBulk.withLockedValue { $0 }.body
            return body.getSlice(at: body.readerIndex, length: flagsLength) ?? ByteBuffer()
        }

        /// The bulk 200 for callers at `origin` with `secret`; `tail` makes the end of the body (the stream
        /// URL and the closing brace) when it is not the last one made.
        func bulk(origin: RequestOrigin, secret: String, tail: () -> ByteBuffer) -> Bulk {
            let last = lastBulk.withLockedValue { $0 }
            if last.secret == secret, last.origin == origin { return last }
            // New buffers: the flags (and their gzip form) are copied once more here, and the last bodies'
            // storage goes with them.
            let tail = tail()
            var body = last.body.getSlice(at: last.body.readerIndex, length: flagsLength) ?? ByteBuffer()
            body.writeImmutableBuffer(tail)
            var head = okHead
            head.writeString("Content-Length: \(body.readableBytes)\r\n")
            var gzipBody: ByteBuffer?
            var gzipHead: ByteBuffer?
            if let gzipFlags, let last = last.gzipBody,
                let deflated = last.getSlice(at: last.readerIndex, length: gzipFlags.length)
            {
                let member = GzipPrefix(deflated: deflated, crc: gzipFlags.crc, length: flagsLength).member(tail: tail)
                var head = gzipOkHead
                head.writeString("Content-Length: \(member.readableBytes)\r\n")
                gzipBody = member
                gzipHead = head
            }
            let made = Bulk(origin: origin, secret: secret, body: body, head: head, gzip: gzipBody, gzipHead: gzipHead)
            lastBulk.withLockedValue { $0 = made }
            return made
        }

        private static func render(_ status: String, _ fields: HTTPFields) -> ByteBuffer {
            var head = ByteBuffer(string: "HTTP/1.1 \(status)\r\n")
            for field in fields { head.writeString("\(field.name.rawName): \(field.value)\r\n") }
            return head
        }

        /// The start of the single-flag answer of the parameter at `position` (to be followed by
        /// `singleTail`): its bulk item, shared with the bulk bytes.
        func item(_ position: Int) -> ByteBuffer {
            let place = items[position]
            return bulkHead.getSlice(at: place.offset, length: place.length) ?? ByteBuffer()
        }
    }

    /// Before anything is published: no flags.
    static let nothingPublished = OFREPAnswers(nil)

    let compiled: CompiledTemplate?
    private let bySignature: AnswersBySignature<Answer>?
    /// A parameter's serving position by key.
    private let positions: [String: Int]
    private let empty: Answer

    init(_ compiled: CompiledTemplate?) {
        self.compiled = compiled
        self.empty = Self.encode(items: [], templateVersion: nil)
        guard let compiled else {
            bySignature = nil
            positions = [:]
            return
        }
        var types: [String: ValueType] = [:]
        for (key, parameter, _) in compiled.template.allParameters where types[key] == nil {
            types[key] = parameter.valueType
        }
        var split = Set<String>()
        for condition in compiled.conditions
        where condition.expression.atoms.contains(where: { if case .percent = $0 { true } else { false } }) {
            split.insert(condition.name)
        }
        let version = compiled.versionNumber
        var positions: [String: Int] = [:]
        for (position, key) in compiled.parameterKeys.enumerated() where positions[key] == nil {
            positions[key] = position
        }
        self.positions = positions
        let splitConditions = split
        let valueTypes = types
        bySignature = AnswersBySignature(compiled, weigh: Self.weigh) { signature in
            let items = compiled.outcomes(signature).map { outcome in
                Item(
                    outcome: outcome, type: valueTypes[outcome.key] ?? .string,
                    split: outcome.condition.map(splitConditions.contains) ?? false)
            }
            return OFREPAnswers.encode(items: items, templateVersion: version, tally: compiled.tally(signature))
        }
    }

    /// Whether evaluating one caller may take long enough to stall other connections.
    var isHeavy: Bool { compiled.map(FetchAnswers.isHeavy) ?? false }

    /// The serving position of parameter `key`, nil when no such parameter is published.
    func position(of key: Substring) -> Int? { positions[String(key)] }

    /// About how many bytes an evaluation holds (`ByteBudget`): the flags, their gzip form and one caller
    /// origin's bulk body, the heads and fields, its tally.
    static func weigh(_ answer: Answer) -> Int {
        3 * answer.flagsLength + answer.singleTail.readableBytes + 16 * answer.items.count + answer.tally.bytes
            + 2_048
    }

    /// The evaluation for `context`.
    func answer(for context: FetchContext) -> Answer { bySignature?.answer(for: context) ?? empty }

    /// The evaluation before anything is published (no flags), given without reading the request.
    var nothingPublishedAnswer: Answer? { bySignature == nil ? empty : nil }

    /// One parameter's outcome with what OFREP says about it.
    struct Item {
        let outcome: Explanation.Outcome
        let type: ValueType
        /// The deciding condition has a `percent` atom.
        let split: Bool
    }

    /// The bulk head and the ETag of `items`.
    static func encode(items: [Item], templateVersion: String?, tally: AnswerTally = .empty) -> Answer {
        var bytes: [UInt8] = Array(#"{"flags":["#.utf8)
        var places: [(offset: Int, length: Int)] = []
        places.reserveCapacity(items.count)
        var hasher = SHA256()
        var versionTail: [UInt8] = []
        if let templateVersion {
            versionTail = Array(#","templateVersion":"#.utf8)
            JSONWriter.writeString(templateVersion, into: &versionTail)
        }
        for (index, item) in items.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            let start = bytes.count
            bytes += #"{"key":"#.utf8
            JSONWriter.writeString(item.outcome.key, into: &bytes)
            if let value = item.outcome.value {
                bytes += #","value":"#.utf8
                writeValue(value, type: item.type, into: &bytes)
            }
            bytes += #","reason":"#.utf8
            bytes +=
                (item.outcome.condition == nil ? #""STATIC""# : item.split ? #""SPLIT""# : #""TARGETING_MATCH""#)
                .utf8
            bytes += #","variant":"#.utf8
            JSONWriter.writeString(item.outcome.condition ?? "default", into: &bytes)
            bytes += #","metadata":{"valueType":"#.utf8
            JSONWriter.writeString(item.type.rawValue, into: &bytes)
            // What the caller receives: the ETag's input.
            hasher.update(data: Array(bytes[start...]))
            hasher.update(data: [UInt8(0)])
            places.append((start, bytes.count - start))
            bytes += "}}".utf8
        }
        bytes += #"],"metadata":{"#.utf8
        if !versionTail.isEmpty { bytes += versionTail.dropFirst() }
        bytes.append(UInt8(ascii: "}"))
        var etag = "\""
        for byte in hasher.finalize().prefix(16) {
            etag += String(byte >> 4, radix: 16)
            etag += String(byte & 0x0F, radix: 16)
        }
        etag += "\""
        return Answer(
            bulkHead: ByteBuffer(bytes: bytes), etag: etag, items: places,
            singleTail: ByteBuffer(bytes: versionTail + Array("}}".utf8)), tally: tally)
    }

    /// A served value as OFREP types it: BOOLEAN a JSON boolean, NUMBER a JSON number, JSON the value
    /// itself, STRING a string. A value that does not fit its type (published templates are validated, so
    /// only one stored before a rule existed) is sent as the string it is.
    static func writeValue(_ text: String, type: ValueType, into bytes: inout [UInt8]) {
        switch type {
        case .boolean where text == "true" || text == "false":
            bytes += text.utf8
        case .number:
            if let number = jsonNumber(text) {
                bytes += number.utf8
            } else {
                JSONWriter.writeString(text, into: &bytes)
            }
        case .json:
            if let value = try? JSONValue(parsing: text) {
                bytes += value.jsonBytes()
            } else {
                JSONWriter.writeString(text, into: &bytes)
            }
        default:
            JSONWriter.writeString(text, into: &bytes)
        }
    }

    /// A template NUMBER (`+5`, `.5`, `5.`, `1e3` are allowed there) in JSON's number syntax, keeping what
    /// the author wrote otherwise: `5` stays an integer and `5.0` a fraction, which typed OpenFeature
    /// accessors (integer or double) tell apart.
    static func jsonNumber(_ text: String) -> String? {
        var body = Substring(text)
        var sign = ""
        if body.first == "+" { body = body.dropFirst() }
        if body.first == "-" {
            sign = "-"
            body = body.dropFirst()
        }
        var mantissa = body
        var exponent: Substring = ""
        if let mark = body.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            mantissa = body[..<mark]
            exponent = body[mark...]
        }
        var integer = mantissa
        var fraction: Substring = ""
        if let dot = mantissa.firstIndex(of: ".") {
            integer = mantissa[..<dot]
            fraction = mantissa[mantissa.index(after: dot)...]
        }
        integer = integer.drop { $0 == "0" }
        if integer.isEmpty { integer = "0" }
        let digits: (Substring) -> Bool = { !$0.isEmpty && $0.allSatisfy { $0 >= "0" && $0 <= "9" } }
        guard digits(integer), fraction.isEmpty || digits(fraction) else { return nil }
        var result = sign + integer
        if !fraction.isEmpty { result += "." + fraction }
        if !exponent.isEmpty {
            var power = exponent.dropFirst()
            var powerSign = ""
            if power.first == "+" || power.first == "-" {
                powerSign = power.first == "-" ? "-" : ""
                power = power.dropFirst()
            }
            guard digits(power) else { return nil }
            result += "e" + powerSign + power
        }
        guard let value = Double(result), value.isFinite else { return nil }
        return result
    }
}
