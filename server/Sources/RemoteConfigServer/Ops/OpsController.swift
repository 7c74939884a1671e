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
    let insights: InsightsRecorder

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
        let bytes = metrics.render(
            streams: streams.count,
            memoryHeld: [("answers", ByteBudget.answers.bytes), ("insights_sample", insights.sampleBudget.bytes)])
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
