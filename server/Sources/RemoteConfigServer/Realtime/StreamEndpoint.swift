import Foundation
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `remoteConfig:stream`, decided once for both ways a stream request comes in: `StreamFront`, on the
/// connection's event loop ahead of NIO's codec, and `StreamController`, behind the router, for what the
/// front leaves to NIO's parser. Whether a request may stream (its format, its client key, a key this
/// server must look up first, a slot under the caps), every error answer, the opening, which events go
/// out, the metrics and the access-log line are this type's; the two ways in only read the request and
/// write bytes on their transport.
final class StreamEndpoint: Sendable {
    let hub: StreamHub
    let published: PublishedTemplates
    let clientKeys: ClientKeys
    let metrics: ServerMetrics
    /// Which web origins may open a stream from a browser.
    let cors: CORSPolicy
    /// Where the front records its streams (the router's middleware records the router's, in the same log).
    let accessLog: AccessLog

    init(
        hub: StreamHub, published: PublishedTemplates, clientKeys: ClientKeys, metrics: ServerMetrics,
        cors: CORSPolicy, accessLog: AccessLog
    ) {
        self.hub = hub
        self.published = published
        self.clientKeys = clientKeys
        self.metrics = metrics
        self.cors = cors
        self.accessLog = accessLog
    }

    /// A request allowed to stream: whose, in which format, and what its client saw last.
    struct Admission: Sendable {
        let project: String
        let keyId: String
        let format: StreamFormat
        let lastEventID: Int64?
    }

    /// The admission when memory decides it, nil when the key must be looked up first (`admission(_:)`);
    /// throws the error to answer. `keyMemo` is the connection's last key (see `ClientKeys.Memo`).
    func immediateAdmission(_ call: StreamCall, keyMemo: inout ClientKeys.Memo?) throws(APIError) -> Admission? {
        let (format, secret) = try Self.formatAndSecret(call)
        switch clientKeys.cached(secret: secret, memo: &keyMemo) {
        case .known(let key): return try admit(key, call, format)
        case .unknown: throw ClientAuth.invalidKey
        case .notCached: return nil
        }
    }

    /// The admission, looking the key up in the database when memory does not know it; throws the error
    /// to answer (or the database's, which the router maps as it maps every error).
    func admission(_ call: StreamCall) async throws -> Admission {
        var memo: ClientKeys.Memo?
        if let admission = try immediateAdmission(call, keyMemo: &memo) { return admission }
        let (format, secret) = try Self.formatAndSecret(call)
        guard let key = try await clientKeys.lookup(secret: secret) else { throw ClientAuth.invalidKey }
        return try admit(key, call, format)
    }

    private static func formatAndSecret(_ call: StreamCall) throws(APIError) -> (StreamFormat, String) {
        guard let format = call.format else {
            throw APIError.invalidField(
                "format", reason: "INVALID_FORMAT", "format must be ofrep, or absent for this API's own events")
        }
        guard let secret = call.secret, !secret.isEmpty else { throw ClientAuth.missingKey }
        return (format, secret)
    }

    private func admit(_ key: ClientKeys.Key, _ call: StreamCall, _ format: StreamFormat) throws(APIError) -> Admission
    {
        try ClientAuth.check(key, project: call.project)
        let lastEventID = call.lastEventID.flatMap {
            Int64(String(decoding: Array($0.utf8)[...].trimmingWhitespace, as: UTF8.self))
        }
        return Admission(project: call.project, keyId: key.id, format: format, lastEventID: lastEventID)
    }

    /// The error a stream refused a slot answers, counted: refused before the process runs out of
    /// descriptors (so fetches and admin calls find room), or before one key takes every slot (so one
    /// project's apps cannot starve another's).
    func refused(_ refusal: StreamHub.Refusal) -> APIError {
        metrics.streamRefused()
        return hub.error(refusal)
    }

    /// The first bytes of an admitted stream (the reconnection delay, then the current version's event
    /// unless its client has it) and where the client then stands. Read after the stream is subscribed,
    /// so that a publish in between is not missed.
    func opening(_ admission: Admission) -> (text: String, cursor: StreamCursor) {
        let current = published.entry(admission.project)?.version ?? 0
        let opening = StreamResponse.opening(
            lastEventID: admission.lastEventID, current: current, format: admission.format)
        return (opening.text, StreamCursor(format: admission.format, sent: opening.sent))
    }

    /// Counts a stream the front opened and records its access-log line, as the router's middleware does
    /// for the streams it opens.
    func recordOpened(_ admission: Admission, requestID: String, duration: Duration) {
        metrics.request(route: ClientPaths.stream, method: "GET", status: 200, duration: duration)
        accessLog.record(
            method: "GET", prefix: ClientPaths.projects, Substring(admission.project),
            suffix: ClientPaths.streamSuffix, status: 200, duration: duration, requestID: requestID)
    }

    /// A stream through the router: admitted as the front admits, subscribed to the hub, the same opening
    /// and events, ended by a revocation, its client's departure or a graceful shutdown. Throws the error
    /// to answer.
    func routedResponse(_ call: StreamCall, channel: any Channel) async throws -> Response {
        let admission = try await admission(call)
        // Subscribed before the current version is read, so a publish in between is not missed.
        let (id, events): (UInt64, AsyncStream<StreamHub.Event>)
        switch hub.subscribe(
            project: admission.project, keyId: admission.keyId, abort: { channel.close(promise: nil) })
        {
        case .success(let subscription): (id, events) = subscription
        case .failure(let refusal): throw refused(refusal)
        }
        // An SSE client never sends more after its request, so the end of its input means it has gone.
        let hub = self.hub
        let project = admission.project
        try await ConnectionWatcher.becomeStream(channel) { hub.drop(project: project, id: id) }
        let (opening, start) = opening(admission)
        return Response(
            status: .ok, headers: StreamResponse.headers,
            body: ResponseBody { writer in
                var cursor = start
                try await writer.write(ByteBuffer(string: opening))
                try await withGracefulShutdownHandler {
                    for await event in events {
                        switch event {
                        case .version(let version):
                            guard cursor.takes(version) else { continue }
                            try await writer.write(ByteBuffer(string: cursor.format.event(version)))
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
