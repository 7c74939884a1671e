import HTTPTypes
import RemoteConfigCore

/// The head of a `GET /v1/projects/{p}/remoteConfig:stream` request, read straight from the connection's
/// bytes by `StreamFront`.
///
/// Deliberately narrow, like `FetchRequestHead`: only the plain form SDKs send (HTTP/1.1, no body, a key in
/// `X-API-Key` or as `?key=`, `format=ofrep` or not, well-formed header lines). Anything else is `notStream`
/// and goes to NIO's HTTP parser and the router untouched, which answer it as they answer every request.
struct StreamRequestHead: Sendable, Equatable {
    /// The `{p}` of the path.
    var project: String
    /// The client key: `X-API-Key`, else the `?key=` of the path (`ClientAuth.secret`).
    var apiKey: String?
    var lastEventID: String?
    var requestID: String?
    /// `Origin`, which a browser sends (CORS).
    var webOrigin: String?
    /// `format=ofrep`, or this API's own events.
    var format = StreamFormat.remoteConfig
    /// Bytes of the head, its final empty line included.
    var headLength: Int

    /// What the bytes at the start of a connection's buffer are.
    enum Parse: Equatable {
        /// Not enough bytes yet to tell.
        case needMore
        case notStream
        case stream(StreamRequestHead)
    }

    /// A head longer than this is not a plain stream request.
    static let maximumHeadLength = 8192

    private static let prefix = Array(("GET " + ClientPaths.projects).utf8)
    private static let suffix = Array(ClientPaths.streamSuffix.utf8)

    /// Reads the head at the start of `bytes`.
    static func parse(_ bytes: some Collection<UInt8>) -> Parse {
        let bytes = Array(bytes.prefix(maximumHeadLength + 1))
        for (index, byte) in prefix.enumerated() {
            guard index < bytes.count else { return .needMore }
            if bytes[index] != byte { return .notStream }
        }
        guard let end = HeadLines.headEnd(bytes) else {
            return bytes.count > maximumHeadLength ? .notStream : .needMore
        }
        guard var head = head(bytes[..<end]) else { return .notStream }
        head.headLength = end
        return .stream(head)
    }

    private static func head(_ bytes: ArraySlice<UInt8>) -> StreamRequestHead? {
        var head = StreamRequestHead(project: "", headLength: 0)
        var queryKey: String?
        var seen = Set<Field>()
        let read = HeadLines.read(
            bytes, end: bytes.endIndex,
            requestLine: { line in
                guard let first = requestLine(line) else { return false }
                head = first
                queryKey = first.apiKey
                head.apiKey = nil
                return true
            },
            field: { name, value in
                guard let field = Field(name: name) else { return true }
                // Once each: a repeated one is for the full parser to judge. A body, or a request for
                // something other than a stream, is the full parser's too.
                guard field != .refused, seen.insert(field).inserted else { return false }
                let text = String(decoding: value, as: UTF8.self)
                switch field {
                case .apiKey: head.apiKey = text
                case .lastEventID: head.lastEventID = text
                case .requestID: head.requestID = text
                case .webOrigin: head.webOrigin = text
                case .connection: return HeadLines.closes(value) != nil
                case .host, .refused: break
                }
                return true
            })
        guard read, seen.contains(.host) else { return nil }
        head.apiKey = ClientAuth.secret(header: head.apiKey, query: queryKey)
        return head
    }

    /// The fields a stream reads, and those that make a request more than a plain stream.
    private enum Field: Hashable {
        case host, apiKey, lastEventID, requestID, webOrigin, connection, refused

        /// This server's own field names (spelt once, as `HTTPField.Name`s), lowercase, as bytes.
        private static let names: [(Field, [UInt8])] =
            [
                // HTTPTypes has no `Host` name (its `HTTPRequest.authority` stands for it).
                (.host, Array("host".utf8)),
                (.apiKey, Array(HTTPField.Name.apiKey.canonicalName.utf8)),
                (.lastEventID, Array(HTTPField.Name.lastEventID.canonicalName.utf8)),
                (.requestID, Array(HTTPField.Name.requestID.canonicalName.utf8)),
                (.webOrigin, Array(HTTPField.Name.origin.canonicalName.utf8)),
                (.connection, Array(HTTPField.Name.connection.canonicalName.utf8)),
            ]
            + [HTTPField.Name.contentLength, .transferEncoding, .expect, .upgrade, .contentEncoding].map {
                (.refused, Array($0.canonicalName.utf8))
            }

        /// nil for a field a stream ignores.
        init?(name: ArraySlice<UInt8>) {
            guard let found = Self.names.first(where: { name.equalsIgnoringCase($0.1) }) else { return nil }
            self = found.0
        }
    }

    /// `GET /v1/projects/{p}/remoteConfig:stream[?key=K][&format=ofrep] HTTP/1.1`, with a valid `ProjectID`
    /// and a key of `A-Z a-z 0-9 _ -`.
    private static func requestLine(_ line: ArraySlice<UInt8>) -> StreamRequestHead? {
        let version = " HTTP/1.1".utf8
        guard line.count > prefix.count + version.count, line.suffix(version.count).elementsEqual(version) else {
            return nil
        }
        let target = line[(line.startIndex + prefix.count)..<(line.endIndex - version.count)]
        let project = target.prefix { $0 != UInt8(ascii: "/") }
        guard ProjectID.isValid(project) else { return nil }
        let tail = target.dropFirst(project.count)
        guard tail.starts(with: suffix) else { return nil }
        let query = tail.dropFirst(suffix.count)
        var key: String?
        var format = StreamFormat.remoteConfig
        if !query.isEmpty {
            // `key=K` and `format=ofrep`, each at most once, in either order; anything else is the router's.
            guard query.first == UInt8(ascii: "?") else { return nil }
            var seenFormat = false
            for item in query.dropFirst().split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
                if item.starts(with: "key=".utf8), key == nil {
                    let value = item.dropFirst(4)
                    let keyCharacter = { (byte: UInt8) in
                        isLower(byte) || isDigit(byte) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F
                            || byte == 0x2D
                    }
                    guard !value.isEmpty, value.allSatisfy(keyCharacter) else { return nil }
                    key = String(decoding: value, as: UTF8.self)
                } else if item.elementsEqual("format=ofrep".utf8), !seenFormat {
                    seenFormat = true
                    format = .ofrep
                } else {
                    return nil
                }
            }
        }
        return StreamRequestHead(
            project: String(decoding: project, as: UTF8.self), apiKey: key, lastEventID: nil, requestID: nil,
            format: format, headLength: 0)
    }

    private static func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

}
