import HTTPTypes
import Hummingbird
import NIOCore

/// The OpenFeature Remote Evaluation Protocol through the router. Connections normally answer these calls on
/// the event loop (`FetchFront`) before they reach the router; this serves what the front hands on, exactly
/// as it would have answered (both use `FetchEndpoint`).
struct OFREPController {
    let endpoint: FetchEndpoint

    func addRoutes(to routes: Routes) {
        routes.post(
            ClientRoute.Kind.ofrepFlags.path,
            query: ClientRoute.Kind.ofrepFlags.queryParameters.subtracting(routes.sharedQuery)
        ) { request, context in
            try await answer(.ofrepFlags, request, context)
        }
        routes.post(ClientRoute.Kind.ofrepFlag.path) { request, context in
            try await answer(.ofrepFlag(key: Substring(try context.parameters.require("key"))), request, context)
        }
    }

    private func answer(_ route: ClientRoute, _ request: Request, _ context: AppRequestContext) async throws
        -> Response
    {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let call = FetchCall(
            route: route, apiKeyHeader: request.headers[ClientAuth.header],
            bearerToken: request.headers[.authorization].flatMap { OFREPEvaluation.bearerToken(Array($0.utf8)[...]) },
            query: request.uri.query.map { Substring($0) }, ifNoneMatch: request.headers[.ifNoneMatch],
            acceptsGzip: AcceptEncoding.acceptsGzip(request.headers), body: body,
            origin: RequestOrigin(
                host: request.head.authority, forwardedHost: request.headers[.forwardedHost],
                forwardedProto: request.headers[.forwardedProto]))
        let reply = await endpoint.reply(call)
        return Response(
            status: reply.status, headers: reply.headers, body: .init(byteBuffer: reply.fullBody))
    }
}

extension HTTPField.Name {
    static let forwardedHost = Self("X-Forwarded-Host")!
    static let forwardedProto = Self("X-Forwarded-Proto")!
}
