import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `/console`: the web console, static files bundled with the server (`Resources/console`), served with
/// headers that keep the page from running anything but its own files and from being framed.
struct ConsoleController {
    let files: ConsoleFiles

    func addRoutes(to routes: Routes) {
        routes.get("/console", use: index)
        routes.get("/console/{file}", use: file)
    }

    @Sendable func index(_ request: Request, context: AppRequestContext) async throws -> Response {
        try response(for: "index.html", request)
    }

    @Sendable func file(_ request: Request, context: AppRequestContext) async throws -> Response {
        try response(for: try context.parameters.require("file"), request)
    }

    private func response(for name: String, _ request: Request) throws -> Response {
        // A lookup in a fixed table: a path such as `../x` names no file, so nothing outside the bundle is read.
        guard let file = files.files[name] else { throw APIError.notFound("no console file \(name)") }
        var headers = ConsoleFiles.securityHeaders
        headers[.contentType] = file.contentType
        headers[.eTag] = file.etag
        // Revalidated on every load (cheap: the ETag), so a new server version's files are used at once.
        headers[.cacheControl] = "no-cache"
        if request.headers[.ifNoneMatch] == file.etag { return Response(status: .notModified, headers: headers) }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }
}

extension HTTPField.Name {
    static let contentSecurityPolicy = Self("Content-Security-Policy")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
}
