import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// Answers `remoteConfig:fetch` on the connection's event loop, before the request reaches Hummingbird's
/// request task, router and middleware: a fetch costs the HTTP parsing, an evaluation of the template's
/// conditions and a write of remembered bytes. Every other request passes through untouched.
///
/// The answer is `FetchEndpoint`'s, as through the router; this handler adds what the router's middleware
/// adds elsewhere (the request id, metrics, the access log). A fetch that must wait (a key this server
/// has not seen, a template at the limits) is answered from a task, and later requests on the connection
/// wait for it. A fetch pipelined behind a request the router still handles is passed on to the router,
/// so answers keep their order.
final class FetchFastPathHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private enum Mode {
        case idle
        /// A request for the router: its parts pass through.
        case forwarding
        /// A fetch whose body is being read (`fetch` holds it).
        case collecting
        /// A fetch answered from a task; inbound parts wait in `queued`.
        case answering
    }

    private struct Fetch {
        var head: HTTPRequest
        var project: Substring
        var query: Substring?
        var body = ByteBuffer()
        var tooLarge = false
        let start = ContinuousClock.now
    }

    private let endpoint: FetchEndpoint
    private let logger: Logger
    private let maxBodySize: Int
    private var mode = Mode.idle
    private var fetch: Fetch?
    /// Requests passed to the router whose response has not ended yet.
    private var forwardedInFlight = 0
    private var queued: [HTTPRequestPart] = []
    private var quiesceHeld = false
    private var removed = false
    /// The task answering a fetch that had to wait; cancelled when the client hangs up.
    private var answering: Task<Void, Never>?

    init(endpoint: FetchEndpoint, logger: Logger, maxBodySize: Int = 1 << 20) {
        self.endpoint = endpoint
        self.logger = logger
        self.maxBodySize = maxBodySize
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
        answering?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The client hung up: work not started for it is skipped (see `HeavyWork`).
        answering?.cancel()
        context.fireChannelInactive()
    }

    /// The client closed its side of the connection. Connections stay half-open here, and NIO's HTTP
    /// pipeline holds that event back until the response in progress ends, so the byte-level watcher at the
    /// front of the pipeline calls this: a fetch still waiting for its answer is for a client that left, and
    /// work not started for it is skipped.
    func clientLeft() {
        if mode == .answering { answering?.cancel() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        if case .answering = mode {
            queued.append(part)
            return
        }
        process(part, context: context)
    }

    private func process(_ part: HTTPRequestPart, context: ChannelHandlerContext) {
        switch (mode, part) {
        case (.idle, .head(let head)):
            if forwardedInFlight == 0, let (project, query) = Self.fetchTarget(head) {
                mode = .collecting
                fetch = Fetch(head: head, project: project, query: query)
            } else {
                forwardedInFlight += 1
                mode = .forwarding
                context.fireChannelRead(wrapInboundOut(part))
            }
        case (.forwarding, .end):
            mode = .idle
            context.fireChannelRead(wrapInboundOut(part))
        case (.forwarding, _):
            context.fireChannelRead(wrapInboundOut(part))
        case (.collecting, .body(var buffer)):
            if fetch!.tooLarge { return }
            if fetch!.body.readableBytes + buffer.readableBytes > maxBodySize {
                fetch!.tooLarge = true
                fetch!.body = ByteBuffer()
            } else if fetch!.body.readableBytes == 0 {
                fetch!.body = buffer
            } else {
                fetch!.body.writeBuffer(&buffer)
            }
        case (.collecting, .end):
            let request = fetch!
            fetch = nil
            answer(request, context: context)
        default:
            // A head in the middle of a request: the decoder would not send it; drop the connection.
            context.close(promise: nil)
        }
    }

    private func answer(_ request: Fetch, context: ChannelHandlerContext) {
        if request.tooLarge {
            let error = APIError(
                .contentTooLarge, "the request body is larger than 1 MiB", headers: [.connection: "close"])
            finish(request, reply: FetchEndpoint.reply(error), context: context)
            return
        }
        let call = FetchCall(
            project: request.project, apiKeyHeader: request.head.headerFields[ClientAuth.header], query: request.query,
            ifNoneMatch: request.head.headerFields[.ifNoneMatch], body: request.body)
        if let reply = endpoint.immediateReply(call) {
            finish(request, reply: reply, context: context)
            return
        }
        mode = .answering
        let endpoint = self.endpoint
        let eventLoop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: eventLoop)
        answering = Task {
            let reply = await endpoint.reply(call)
            eventLoop.execute {
                let (handler, context) = bound.value
                handler.answering = nil
                handler.mode = .idle
                handler.finish(request, reply: reply, context: context)
                handler.replayQueued(context: context)
            }
        }
    }

    private func replayQueued(context: ChannelHandlerContext) {
        while !queued.isEmpty, mode != .answering, !removed {
            process(queued.removeFirst(), context: context)
        }
    }

    private func finish(_ request: Fetch, reply: FetchReply, context: ChannelHandlerContext) {
        mode = .idle
        let requestID = RequestID.make(incoming: request.head.headerFields[.requestID])
        let status = Int(reply.status.code)
        let duration = ContinuousClock.now - request.start
        endpoint.metrics.request(route: FetchEndpoint.route, method: "POST", status: status, duration: duration)
        if logger.logLevel <= .info {
            var logger = self.logger
            logger[metadataKey: "hb.request.id"] = .string(requestID)
            let path = request.head.path?.prefix { $0 != "?" } ?? ""
            let milliseconds =
                Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1e3
            logger.info("POST \(path) \(status)", metadata: ["duration_ms": "\(milliseconds)"])
        }
        guard !removed, context.channel.isActive else { return }
        if reply.status.code == 499 {
            context.close(promise: nil)
            return
        }

        var fields = reply.headers
        fields[.requestID] = requestID
        let close = request.head.headerFields[.connection]?.lowercased() == "close" || fields[.connection] == "close"
        if close { fields[.connection] = "close" }
        if reply.status != .notModified { fields[.contentLength] = String(reply.body?.readableBytes ?? 0) }
        context.write(wrapOutboundOut(.head(HTTPResponse(status: reply.status, headerFields: fields))), promise: nil)
        if reply.status != .notModified, let body = reply.body {
            context.write(wrapOutboundOut(.body(body)), promise: nil)
        }
        if close {
            let promise = context.eventLoop.makePromise(of: Void.self)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: promise)
            let channel = context.channel
            promise.futureResult.whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        if quiesceHeld {
            quiesceHeld = false
            context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { forwardedInFlight = max(0, forwardedInFlight - 1) }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Server shutdown: the handlers behind us close idle connections, and they do not see our fetches,
        // so hold the event until the fetch in progress is answered.
        if event is ChannelShouldQuiesceEvent, mode == .collecting || mode == .answering {
            quiesceHeld = true
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// The project and query of `POST /v1/projects/{p}/remoteConfig:fetch[?…]`, for plain project ids.
    static func fetchTarget(_ head: HTTPRequest) -> (Substring, Substring?)? {
        guard head.method == .post, let path = head.path else { return nil }
        let prefix = "/v1/projects/"
        let suffix = "/remoteConfig:fetch"
        guard path.hasPrefix(prefix) else { return nil }
        let rest = path.dropFirst(prefix.count)
        let project = rest.prefix { $0 != "/" }
        guard !project.isEmpty,
            project.utf8.allSatisfy({
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z"))
                    || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
                    || $0 == UInt8(ascii: "-")
            })
        else { return nil }
        let tail = rest.dropFirst(project.count)
        guard tail.hasPrefix(suffix) else { return nil }
        let after = tail.dropFirst(suffix.count)
        if after.isEmpty { return (project, nil) }
        guard after.first == "?" else { return nil }
        return (project, after.dropFirst())
    }
}
