import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `remoteConfig:stream`: Server-Sent Events announcing each new template version of a project.
///
/// Most streams never get here: `StreamFront` serves the plain request on the connection's event loop. This
/// route answers the rest the same way (a key this server must look up first, a request the front does not
/// read) and gives every error answer.
struct StreamController {
    let published: PublishedTemplates
    let clientKeys: ClientKeys
    let hub: StreamHub
    let metrics: ServerMetrics

    func addRoutes(to routes: Routes) {
        routes.get(ClientPaths.stream, query: ["format"], use: stream)
        // A stream has no headers-only form: a generated HEAD would open a subscription that nobody reads.
        routes.refuse(.head, ClientPaths.stream)
    }

    @Sendable func stream(_ request: Request, context: AppRequestContext) async throws -> Response {
        let project = try context.parameters.require("p")
        guard let format = StreamFormat(query: request.uri.queryParameters.get("format").map { String($0) }) else {
            throw APIError.invalidField(
                "format", reason: "INVALID_FORMAT", "format must be ofrep, or absent for this API's own events")
        }
        let key = try await ClientAuth.require(request, project: project, keys: clientKeys)
        let lastEventID = request.headers[.lastEventID].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        // Subscribe before reading the current version, so a publish in between is not missed.
        let channel = context.channel
        let (id, events): (UInt64, AsyncStream<StreamHub.Event>)
        switch hub.subscribe(project: project, keyId: key.id, abort: { channel.close(promise: nil) }) {
        case .success(let subscription): (id, events) = subscription
        case .failure(let refusal):
            // Refused before the process runs out of descriptors (so fetches and admin calls find room), or
            // before one key takes every slot (so one project's apps cannot starve another's).
            metrics.streamRefused()
            throw hub.error(refusal)
        }
        // An SSE client never sends more after its request, so the end of its input means it has gone.
        let hub = self.hub
        try await ConnectionWatcher.becomeStream(channel) { hub.drop(project: project, id: id) }
        let opening = StreamResponse.opening(
            lastEventID: lastEventID, current: published.entry(project)?.version ?? 0, format: format)
        return Response(
            status: .ok, headers: StreamResponse.headers,
            body: ResponseBody { writer in
                var sent = opening.sent
                try await writer.write(ByteBuffer(string: opening.text))
                try await withGracefulShutdownHandler {
                    for await event in events {
                        switch event {
                        case .version(let version) where version > sent:
                            try await writer.write(ByteBuffer(string: format.event(version)))
                            sent = version
                        case .version:
                            continue
                        case .keepAlive:
                            try await writer.write(ByteBuffer(string: StreamResponse.keepAlive))
                        }
                    }
                } onGracefulShutdown: {
                    hub.closeAll()
                }
                try await writer.finish(nil)
            })
    }

}

extension HTTPField.Name {
    static let lastEventID = Self("Last-Event-ID")!
}
