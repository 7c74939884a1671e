import Foundation
import Hummingbird
import NIOCore
import RemoteConfigCore
import RemoteConfigStore

/// `/healthz`, `/readyz` and `/openapi.yaml`: what load balancers, probes and API tools read.
struct OpsController {
    let database: Database
    let published: PublishedTemplates
    let metrics: ServerMetrics
    let streams: StreamHub

    func addRoutes(to routes: Routes) {
        routes.get("/healthz", use: health)
        routes.get("/readyz", use: ready)
        routes.get("/openapi.yaml", use: openAPI)
        routes.get("/metrics", use: metricsText)
    }

    @Sendable func health(_ request: Request, context: AppRequestContext) async throws -> Response {
        JSONResponse.make(["status": .string("ok")])
    }

    @Sendable func ready(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard await database.ping() else {
            throw APIError.unavailable("the database does not answer")
        }
        guard published.isLoaded else {
            throw APIError.unavailable("the published templates are still loading")
        }
        return JSONResponse.make(["status": .string("ready")])
    }

    @Sendable func metricsText(_ request: Request, context: AppRequestContext) async throws -> Response {
        let bytes = metrics.render(streams: streams.count)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    @Sendable func openAPI(_ request: Request, context: AppRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: OpenAPIDocument.bytes)))
    }
}

/// The OpenAPI description shipped with the server (the repository's `openapi.yaml`).
public enum OpenAPIDocument {
    /// The file's bytes, read once.
    public static let bytes: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
            let data = try? Data(contentsOf: url)
        else { return Array("openapi: 3.1.0\n".utf8) }
        return Array(data)
    }()

    /// The file's text.
    public static var text: String { String(decoding: bytes, as: UTF8.self) }
}
