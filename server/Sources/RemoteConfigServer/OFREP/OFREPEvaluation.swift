import Foundation
import HTTPTypes
import NIOCore

/// An OFREP call of a client key's project, and how its answers and errors are written.
///
/// Bulk answers carry an `eventStreams` entry: this project's `remoteConfig:stream` in OFREP's event format
/// (`format=ofrep`), with the client key as `?key=`. The web provider opens it with the browser's
/// `EventSource`, which cannot send headers, so a stream URL without the key would be refused; the key is
/// the caller's own (the answer goes to no one else, and is not cached by shared caches), a client key only
/// opens its project's client routes (it ships inside every copy of the app anyway), OFREP requires providers
/// to treat the URL as a secret (never logged or stored), and this server's access log leaves query strings
/// out. Revoking the key closes its streams.
struct OFREPEvaluation: Sendable {
    let call: FetchCall
    /// The client key's project.
    let project: String
    /// The client key as the caller sent it.
    let secret: String

    /// The flag key of a single-flag call.
    private var flagKey: String? {
        if case .ofrepFlag(let key) = call.route { return String(key) }
        return nil
    }

    /// The answer for this call from the caller's evaluation: the bulk answer (or 304), or one flag's item.
    func reply(_ answer: OFREPAnswers.Answer, answers: OFREPAnswers) -> FetchReply {
        if case .ofrepFlag(let key) = call.route {
            guard let position = answers.position(of: key) else { return reply(.flagNotFound(String(key))) }
            return FetchReply(
                status: .ok, fields: Self.itemFields, body: answer.item(position), bodyTail: answer.singleTail,
                renderedFields: Self.itemHead)
        }
        if let ifNoneMatch = call.ifNoneMatch, FetchAnswers.matches(ifNoneMatch, answer.etag) {
            return FetchReply(
                status: .notModified, fields: answer.notModifiedFields, renderedFields: answer.notModifiedHead)
        }
        let bulk = answer.bulk(origin: call.origin, secret: secret) { bulkTail }
        if call.acceptsGzip, let body = bulk.gzipBody, let head = bulk.gzipHead {
            return FetchReply(status: .ok, fields: answer.gzipOkFields, body: body, renderedHead: head, gzip: true)
        }
        return FetchReply(status: .ok, fields: answer.okFields, body: bulk.body, renderedHead: bulk.head)
    }

    /// The end of a bulk answer: this caller's `eventStreams`, and the closing brace.
    private var bulkTail: ByteBuffer {
        var tail = ByteBuffer()
        if let url = streamURL {
            tail.reserveCapacity(48 + url.utf8.count)
            tail.writeStaticString(#","eventStreams":[{"type":"sse","url":""#)
            tail.writeString(url)
            tail.writeStaticString(#""}]}"#)
        } else {
            tail.writeStaticString("}")
        }
        return tail
    }

    /// An evaluation that cannot be given, in OFREP's shape.
    func reply(_ failure: OFREPFailure) -> FetchReply {
        FetchReply(status: failure.status, fields: Self.itemFields, body: failure.body(key: flagKey))
    }

    /// A refusal before any evaluation. 401 and 403 have no body, as OFREP says; a request that breaks
    /// this API's own rules (an unknown query parameter) gets the API's error shape like on every route; the
    /// rest (429, 503) OFREP's general error, with the same headers (`Retry-After`).
    static func reply(_ error: APIError, route: ClientRoute) -> FetchReply {
        switch error.status.code {
        case 401, 403:
            return FetchReply(status: error.status, fields: error.headers)
        case 400:
            return FetchEndpoint.reply(error)
        default:
            var fields = error.headers
            fields[.contentType] = "application/json; charset=utf-8"
            var key: String?
            if case .ofrepFlag(let flag) = route { key = String(flag) }
            let failure = OFREPFailure(status: error.status, code: "GENERAL", details: error.message)
            return FetchReply(status: error.status, fields: fields, body: failure.body(key: key))
        }
    }

    static let itemFields: HTTPFields = [.contentType: "application/json; charset=utf-8"]
    static let itemHead = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Type: application/json; charset=utf-8\r\n")

    /// This project's stream in OFREP's event format, as the caller reaches this server; nil when the
    /// request's host is not one a URL can carry.
    var streamURL: String? {
        var scheme = "http"
        if let proto = call.origin.forwardedProto.map(Self.firstToken)?.lowercased(),
            proto == "https" || proto == "http"
        {
            scheme = proto
        }
        guard let host = call.origin.forwardedHost.map(Self.firstToken) ?? call.origin.host, !host.isEmpty,
            host.utf8.allSatisfy(Self.isHostCharacter), secret.utf8.allSatisfy(Self.isKeyCharacter)
        else { return nil }
        return
            "\(scheme)://\(host)\(ClientPaths.projects)\(project)\(ClientPaths.streamSuffix)?format=ofrep&key=\(secret)"
    }

    private static func firstToken(_ text: String) -> String {
        String(text.prefix { $0 != "," }.trimmingCharacters(in: .whitespaces))
    }

    /// A host name, an IPv4 or a bracketed IPv6 address, and a port.
    private static func isHostCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"),
            UInt8(ascii: "["), UInt8(ascii: "]"):
            return true
        default: return false
        }
    }

    private static func isKeyCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "_"), UInt8(ascii: "-"): return true
        default: return false
        }
    }
}
