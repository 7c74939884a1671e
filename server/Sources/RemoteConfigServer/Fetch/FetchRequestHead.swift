import HTTPTypes
import RemoteConfigCore

/// The head of a client call, `POST /v1/projects/{p}/remoteConfig:fetch` or an OFREP evaluation
/// (`POST /ofrep/v1/evaluate/flags[/{key}]`), read straight from the connection's bytes by `FetchFront`.
///
/// Deliberately narrow: it accepts only the plain form SDKs send (HTTP/1.1, `Content-Length` or no body,
/// well-formed header lines) and says `notFetch` for anything else, which then goes to NIO's full HTTP
/// parser untouched. So this parser never has to get an unusual request right, only to recognise a usual
/// one; every ambiguity that request smuggling feeds on (`Transfer-Encoding`, a repeated
/// `Content-Length`, folded lines, bare line feeds, control characters) is a `notFetch`.
struct FetchRequestHead: Sendable, Equatable {
    /// The `{p}` of a fetch's path; empty for an OFREP call.
    var project: String
    /// An OFREP call (`project` is then empty).
    var isOFREP = false
    /// The `{key}` of an OFREP single-flag call.
    var flagKey: String?
    /// The token of `Authorization: Bearer <token>` (`BearerToken`), and `Host`,
    /// `X-Forwarded-Host` and `X-Forwarded-Proto`, read for OFREP calls only.
    var bearerToken: String?
    var origin = RequestOrigin()
    /// The query string without `?`, if any.
    var query: String?
    var apiKey: String?
    var ifNoneMatch: String?
    /// `Accept-Encoding` allows gzip.
    var acceptsGzip = false
    var requestID: String?
    /// `Origin`, which a browser sends (CORS).
    var webOrigin: String?
    /// Bytes of body after the head.
    var contentLength: Int
    /// `Connection: close`.
    var close: Bool
    /// Bytes of the head, its final empty line included.
    var headLength: Int

    /// What the bytes at the start of a connection's buffer are.
    enum Parse: Equatable {
        /// Not enough bytes yet to tell.
        case needMore
        /// Anything but a plain fetch: NIO's HTTP parser takes it from here.
        case notFetch
        case fetch(FetchRequestHead)
    }

    /// A head longer than this is not a plain fetch.
    static let maximumHeadLength = 8192
    /// A body longer than this is not a plain fetch (the router answers 413).
    static let maximumBodyLength = 1 << 20

    private static let prefix = Array(("POST " + ClientPaths.projects).utf8)
    private static let ofrepPrefix = Array(("POST " + ClientPaths.ofrepFlags).utf8)
    private static let suffix = Array(ClientPaths.fetchSuffix.utf8)

    /// Reads the head at the start of `bytes`.
    static func parse(_ bytes: some Collection<UInt8>) -> Parse {
        // Read where the bytes lie (a connection's buffer is contiguous): copying them into an array first
        // cost more than reading them, and more for a 304, whose head is longer.
        let parsed = bytes.withContiguousStorageIfAvailable { buffer in
            parse(in: UnsafeBufferPointer(rebasing: buffer.prefix(maximumHeadLength + 1)))
        }
        return parsed ?? Array(bytes.prefix(maximumHeadLength + 1)).withUnsafeBufferPointer { parse(in: $0) }
    }

    private static func parse(in bytes: UnsafeBufferPointer<UInt8>) -> Parse {
        let reader = Reader(bytes)
        // Decide as early as possible that this is not a fetch: most such connections send `GET …`.
        let expected = reader.peek(6) == UInt8(ascii: "o") ? ofrepPrefix : prefix
        for (index, byte) in expected.enumerated() {
            guard let actual = reader.peek(index) else { return .needMore }
            if actual != byte { return .notFetch }
        }
        guard let end = reader.headEnd() else {
            return reader.count > maximumHeadLength ? .notFetch : .needMore
        }
        guard let head = reader.head(end: end) else { return .notFetch }
        return .fetch(head)
    }

    /// Byte-level reading of one head, in place: the lines and values it hands on are slices of `bytes`,
    /// which live only as long as `parse`'s call; what the head keeps is copied into its strings.
    private struct Reader {
        typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>
        let bytes: UnsafeBufferPointer<UInt8>
        var count: Int { bytes.count }

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        func peek(_ index: Int) -> UInt8? {
            index < bytes.count ? bytes[index] : nil
        }

        /// The index just past the head's final CRLF CRLF, if it is all there.
        func headEnd() -> Int? { HeadLines.headEnd(bytes) }

        /// The head in `bytes[..<end]`, or nil when it is anything but a plain fetch.
        func head(end: Int) -> FetchRequestHead? {
            // One head, built in place: the request line makes it, each field line adds to it. (Held as an
            // optional, it was copied out and back, every string retained and released, for each line.)
            var head = FetchRequestHead(project: "", contentLength: 0, close: false, headLength: 0)
            var seen = Field.Set()
            let read = HeadLines.read(
                bytes[...], end: end,
                requestLine: { line in
                    guard let first = Self.requestLine(line) else { return false }
                    head = first
                    head.headLength = end
                    return true
                },
                field: { name, value in Self.apply(name, value, to: &head, seen: &seen) })
            guard read, seen.contains(.host) else { return nil }
            return head
        }

        /// The fields a fetch reads, and those that make a request more than a plain fetch.
        private enum Field: UInt16 {
            case contentLength = 1
            case apiKey = 2
            case ifNoneMatch = 4
            case requestID = 8
            case connection = 16
            case host = 32
            case authorization = 64
            case forwardedHost = 128
            case forwardedProto = 256
            case acceptEncoding = 512
            case webOrigin = 1024
            case refused = 0

            struct Set {
                var bits: UInt16 = 0
                func contains(_ field: Field) -> Bool { bits & field.rawValue != 0 }
                /// false when it was there already.
                mutating func insert(_ field: Field) -> Bool {
                    defer { bits |= field.rawValue }
                    return !contains(field)
                }
            }

            /// This server's own field names (spelt once, as `HTTPField.Name`s), lowercase, as bytes made
            /// once: reading a name's `canonicalName` for each header line showed in the fetch profile.
            static let originName = Array(HTTPField.Name.origin.canonicalName.utf8)
            static let apiKeyName = Array(HTTPField.Name.apiKey.canonicalName.utf8)
            static let requestIDName = Array(HTTPField.Name.requestID.canonicalName.utf8)
            static let forwardedHostName = Array(HTTPField.Name.forwardedHost.canonicalName.utf8)
            static let forwardedProtoName = Array(HTTPField.Name.forwardedProto.canonicalName.utf8)

            /// nil for a field a fetch ignores.
            init?(name: Bytes) {
                func named(_ lowercase: StaticString) -> Bool { name.equalsIgnoringCase(lowercase) }
                func named(_ lowercase: [UInt8]) -> Bool { name.equalsIgnoringCase(lowercase) }
                switch name.count {
                case 4 where named("host"): self = .host
                case 6 where named("expect"): self = .refused
                case 6 where named(Self.originName): self = .webOrigin
                case 7 where named("upgrade"): self = .refused
                case 9 where named(Self.apiKeyName): self = .apiKey
                case 10 where named("connection"): self = .connection
                case 12 where named(Self.requestIDName): self = .requestID
                case 13 where named("if-none-match"): self = .ifNoneMatch
                case 13 where named("authorization"): self = .authorization
                case 14 where named("content-length"): self = .contentLength
                case 15 where named("accept-encoding"): self = .acceptEncoding
                case 16 where named("content-encoding"): self = .refused
                case 16 where named(Self.forwardedHostName): self = .forwardedHost
                case 17 where named("transfer-encoding"): self = .refused
                case 17 where named(Self.forwardedProtoName): self = .forwardedProto
                default: return nil
                }
            }
        }

        /// Reads one header field into `head`; false when the request is not a plain fetch.
        private static func apply(_ name: Bytes, _ value: Bytes, to head: inout FetchRequestHead, seen: inout Field.Set)
            -> Bool
        {
            guard let known = Field(name: name) else { return true }
            // Once each: a repeated one is for the full parser to judge.
            guard known != .refused, seen.insert(known) else { return false }
            switch known {
            case .contentLength:
                guard !value.isEmpty, value.count <= 8, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    return false
                }
                let length = value.reduce(0) { $0 * 10 + Int($1 - 0x30) }
                guard length <= FetchRequestHead.maximumBodyLength else { return false }
                head.contentLength = length
            case .apiKey: head.apiKey = String(decoding: value, as: UTF8.self)
            case .ifNoneMatch: head.ifNoneMatch = String(decoding: value, as: UTF8.self)
            case .acceptEncoding: head.acceptsGzip = AcceptEncoding.acceptsGzip(value)
            case .requestID: head.requestID = String(decoding: value, as: UTF8.self)
            case .webOrigin: head.webOrigin = String(decoding: value, as: UTF8.self)
            case .connection:
                guard let close = HeadLines.closes(value) else { return false }
                head.close = close
            case .host where head.isOFREP: head.origin.host = String(decoding: value, as: UTF8.self)
            case .authorization where head.isOFREP: head.bearerToken = BearerToken.token(value)
            case .forwardedHost where head.isOFREP:
                head.origin.forwardedHost = String(decoding: value, as: UTF8.self)
            case .forwardedProto where head.isOFREP:
                head.origin.forwardedProto = String(decoding: value, as: UTF8.self)
            case .host, .authorization, .forwardedHost, .forwardedProto, .refused:
                break
            }
            return true
        }

        /// `POST /v1/projects/{p}/remoteConfig:fetch[?query] HTTP/1.1`, with a valid `ProjectID` and a query
        /// of visible ASCII.
        private static func requestLine(_ line: Bytes) -> FetchRequestHead? {
            // `parse` has checked the method and the start of the path; the version ends the line.
            let version = " HTTP/1.1".utf8
            guard line.count > version.count, line.suffix(version.count).elementsEqual(version),
                let space = line.firstIndex(of: 0x20)
            else { return nil }
            let target = line[(space + 1)..<(line.endIndex - version.count)]
            guard !target.contains(0x20) else { return nil }
            if target.starts(with: ClientPaths.ofrepFlags.utf8) { return ofrepTarget(target) }
            guard target.starts(with: ClientPaths.projects.utf8) else { return nil }
            let rest = target.dropFirst(ClientPaths.projects.utf8.count)
            let project = rest.prefix { $0 != UInt8(ascii: "/") }
            guard ProjectID.isValid(project) else { return nil }
            let tail = rest.dropFirst(project.count)
            guard tail.starts(with: FetchRequestHead.suffix) else { return nil }
            let after = tail.dropFirst(FetchRequestHead.suffix.count)
            var query: String?
            if let mark = after.first {
                guard mark == UInt8(ascii: "?"), after.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
                query = String(decoding: after.dropFirst(), as: UTF8.self)
            }
            return FetchRequestHead(
                project: String(decoding: project, as: UTF8.self), query: query, apiKey: nil, ifNoneMatch: nil,
                requestID: nil, contentLength: 0, close: false, headLength: 0)
        }

        /// `/ofrep/v1/evaluate/flags[/{key}][?query]`, with a key as parameter keys are (`A-Z a-z 0-9 _`, at
        /// most 256) and a query of visible ASCII.
        private static func ofrepTarget(_ target: Bytes) -> FetchRequestHead? {
            let path = ClientPaths.ofrepFlags.utf8
            guard target.starts(with: path) else { return nil }
            var rest = target.dropFirst(path.count)
            var flagKey: String?
            if rest.first == UInt8(ascii: "/") {
                let key = rest.dropFirst().prefix { $0 != UInt8(ascii: "?") }
                guard !key.isEmpty, key.count <= 256,
                    key.allSatisfy({
                        ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x30 && $0 <= 0x39)
                            || $0 == 0x5F
                    })
                else { return nil }
                flagKey = String(decoding: key, as: UTF8.self)
                rest = rest.dropFirst(1 + key.count)
            }
            var query: String?
            if let mark = rest.first {
                guard mark == UInt8(ascii: "?"), rest.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
                query = String(decoding: rest.dropFirst(), as: UTF8.self)
            }
            return FetchRequestHead(
                project: "", isOFREP: true, flagKey: flagKey, query: query, apiKey: nil, ifNoneMatch: nil,
                requestID: nil, contentLength: 0, close: false, headLength: 0)
        }

    }
}
