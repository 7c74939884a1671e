import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RemoteConfigCore
import RemoteConfigStore

/// `remoteConfig:fetch`: the hot path. Key check and evaluation from memory; no database.
struct FetchController {
    let published: PublishedTemplates
    let clientKeys: ClientKeys
    let metrics: ServerMetrics
    /// nil: no limit (the default).
    let rateLimiter: FetchRateLimiter?

    func addRoutes(to routes: Routes) {
        routes.post("/v1/projects/{p}/remoteConfig:fetch", use: fetch)
    }

    @Sendable func fetch(_ request: Request, context: AppRequestContext) async throws -> Response {
        let project = try context.parameters.require("p")
        let key = try await ClientAuth.require(request, project: project, keys: clientKeys)
        if let rateLimiter, let wait = rateLimiter.admit(key: key.id) {
            var error = APIError(
                .tooManyRequests, "this client key is over its fetch rate limit; retry after \(wait) s",
                headers: [.retryAfter: String(wait)])
            error.statusNameOverride = "RESOURCE_EXHAUSTED"
            throw error
        }
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let fetchContext = try FetchRequest.context(from: body.readableBytesView, now: Date())
        // The client key proves the project exists; one this server has not loaded yet has nothing
        // published (a publish would have reached it through NOTIFY or the periodic check).
        let result = published.entry(project)?.compiled?.resolve(fetchContext) ?? .noTemplate
        let (bytes, etag) = FetchResponse.encode(result)
        var headers: HTTPFields = [.eTag: etag, .cacheControl: "private, no-cache"]
        if let match = request.headers[.ifNoneMatch], FetchResponse.matches(match, etag) {
            metrics.fetch(state: result.state.rawValue, notModified: true)
            return Response(status: .notModified, headers: headers)
        }
        metrics.fetch(state: result.state.rawValue, notModified: false)
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// Client-key checks shared by fetch and stream: `X-API-Key` or `?key=`.
enum ClientAuth {
    static let header = HTTPField.Name("X-API-Key")!

    /// 401 without a valid key, 403 for a key that is not this project's client key.
    @discardableResult
    static func require(_ request: Request, project: String, keys: ClientKeys) async throws -> ClientKeys.Key {
        guard let secret = request.headers[header] ?? request.uri.queryParameters.get("key").map({ String($0) }),
            !secret.isEmpty
        else {
            throw APIError.unauthenticated("missing client key: send X-API-Key or ?key=")
        }
        guard let key = try await keys.lookup(secret: secret) else {
            throw APIError.unauthenticated("the client key is not valid or was revoked")
        }
        guard key.role == .client else {
            throw APIError.permissionDenied("this route takes a client key; admin keys go in Authorization")
        }
        guard key.project == project else {
            throw APIError.permissionDenied("the client key belongs to another project")
        }
        return key
    }
}

/// The bytes of a fetch answer and its ETag, which depends only on what this caller receives.
enum FetchResponse {
    static func encode(_ result: FetchResult) -> ([UInt8], String) {
        var entries: [UInt8] = [UInt8(ascii: "{")]
        for (index, entry) in result.entries.enumerated() {
            if index > 0 { entries.append(UInt8(ascii: ",")) }
            appendString(entry.key, to: &entries)
            entries.append(UInt8(ascii: ":"))
            appendString(entry.value, to: &entries)
        }
        entries.append(UInt8(ascii: "}"))

        var hasher = SHA256()
        hasher.update(data: Array(result.state.rawValue.utf8))
        hasher.update(data: entries)
        let digest = hasher.finalize().prefix(16).map { String(format: "%02x", $0) }.joined()
        let etag = "\"\(digest)\""

        var bytes: [UInt8] = Array(#"{"entries":"#.utf8)
        bytes += entries
        bytes += Array(#","state":"#.utf8)
        appendString(result.state.rawValue, to: &bytes)
        if let version = result.templateVersion {
            bytes += Array(#","templateVersion":"#.utf8)
            appendString(version, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return (bytes, etag)
    }

    /// Whether an `If-None-Match` list names `etag` (or is `*`).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: .whitespaces)
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag || tag == "*"
        }
    }

    /// Appends `text` as a JSON string.
    static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: bytes += Array(String(format: "\\u%04x", byte).utf8)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
