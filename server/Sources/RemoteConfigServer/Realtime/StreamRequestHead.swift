import HTTPTypes

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
        guard let lines = HeadLines.lines(bytes), let first = lines.first, var head = requestLine(first) else {
            return nil
        }
        let queryKey = head.apiKey
        head.apiKey = nil
        var seen = Set<String>()
        for line in lines.dropFirst() {
            guard let (name, value) = HeadLines.field(line) else { return nil }
            let lowered = String(decoding: name, as: UTF8.self).lowercased()
            if readOnce.contains(lowered) {
                // Once each: a repeated one is for the full parser to judge.
                guard seen.insert(lowered).inserted else { return nil }
            } else if refused.contains(lowered) {
                // A body, or a request for something other than a stream.
                return nil
            } else {
                continue
            }
            let text = String(decoding: value, as: UTF8.self)
            switch lowered {
            case apiKeyName: head.apiKey = text
            case lastEventIDName: head.lastEventID = text
            case requestIDName: head.requestID = text
            case originName: head.webOrigin = text
            case connectionName:
                let tokens = text.lowercased().split(separator: ",").map { $0.trimmingSpaces }
                guard tokens.allSatisfy({ $0 == "keep-alive" || $0 == "close" }) else { return nil }
            default: break
            }
        }
        guard seen.contains(hostName) else { return nil }
        head.apiKey = ClientAuth.secret(header: head.apiKey, query: queryKey)
        return head
    }

    // The headers read, compared by the lowercase form of the names the router reads them by.
    /// HTTPTypes has no `Host` name (its `HTTPRequest.authority` stands for it).
    private static let hostName = "host"
    private static let apiKeyName = HTTPField.Name.apiKey.canonicalName
    private static let lastEventIDName = HTTPField.Name.lastEventID.canonicalName
    private static let requestIDName = HTTPField.Name.requestID.canonicalName
    private static let originName = HTTPField.Name.origin.canonicalName
    private static let connectionName = HTTPField.Name.connection.canonicalName
    private static let readOnce: Set<String> = [
        hostName, apiKeyName, lastEventIDName, requestIDName, originName, connectionName,
    ]
    private static let refused = Set(
        [HTTPField.Name.contentLength, .transferEncoding, .expect, .upgrade, .contentEncoding].map(\.canonicalName))

    /// `GET /v1/projects/{p}/remoteConfig:stream[?key=K][&format=ofrep] HTTP/1.1`, with a project id of
    /// `a-z 0-9 -` and a key of `A-Z a-z 0-9 _ -`.
    private static func requestLine(_ line: ArraySlice<UInt8>) -> StreamRequestHead? {
        let version = " HTTP/1.1".utf8
        guard line.count > prefix.count + version.count, line.suffix(version.count).elementsEqual(version) else {
            return nil
        }
        let target = line[(line.startIndex + prefix.count)..<(line.endIndex - version.count)]
        let project = target.prefix { $0 != UInt8(ascii: "/") }
        guard !project.isEmpty, project.count <= 63, project.allSatisfy({ isLower($0) || isDigit($0) || $0 == 0x2D })
        else { return nil }
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

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return text
    }
}
