import HTTPTypes
import Hummingbird

/// `remoteConfig:stream` through the router: a thin adapter onto the one implementation, `StreamEndpoint`,
/// which `StreamFront` calls too.
///
/// Most streams never get here: the front serves every stream request it can read, on the connection's
/// event loop. This route gets the rest (a stream request on a connection that carried another kind of
/// request first, or in a form the front leaves to NIO's parser), and the front's error answers, which it
/// hands on for the router's one error mapping to write.
struct StreamController {
    let endpoint: StreamEndpoint

    func addRoutes(to routes: Routes) {
        routes.get(ClientPaths.stream, query: ["format"], use: stream)
        // A stream has no headers-only form: a generated HEAD would open a subscription that nobody reads.
        routes.refuse(.head, ClientPaths.stream)
    }

    @Sendable func stream(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let call = StreamCall(
            project: try context.projectID().rawValue,
            secret: ClientAuth.secret(header: request.headers[.apiKey], query: query.get("key").map { String($0) }),
            format: StreamFormat(query: query.get("format").map { String($0) }),
            lastEventID: request.headers[.lastEventID])
        return try await endpoint.routedResponse(call, channel: context.channel)
    }
}
