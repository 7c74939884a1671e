import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1

/// Serves `remoteConfig:stream` straight from the connection's bytes, ahead of NIO's HTTP/1 pipeline and
/// Hummingbird's request task: an idle stream is this handler and its socket, nothing more.
///
/// A stream lives for hours and there are tens of thousands per server, so what each one keeps matters.
/// Served by the router, a stream kept the connection's task at the high-water mark of every async frame on
/// its path, a response writer, a queue and a task waking per event. Here it keeps a few fields, and a
/// publish writes one shared buffer to it from its own event loop (`LoopStreams`).
///
/// It takes only the plain request with a client key already in memory and room under the cap
/// (`StreamRequestHead`); anything else, and every byte after it, goes to NIO's HTTP parser and the router
/// untouched, which answer as they answer every request (errors, a key to look up, 503 at the cap).
final class StreamFront: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Mode {
        case reading
        case passthrough
        case streaming
        case ended
    }

    private let hub: StreamHub
    private let published: PublishedTemplates
    private let clientKeys: ClientKeys
    private let metrics: ServerMetrics
    private let cors: CORSPolicy
    private let deadlines: ConnectionDeadlines
    private let accessLog: AccessLog
    private var mode = Mode.reading
    private var buffer = ByteBuffer()
    private var context: ChannelHandlerContext?
    /// The loop's registry this stream is in, while it streams.
    private var registry: LoopStreams?
    private var project = ""
    private(set) var keyId = ""
    /// How this stream writes its events.
    private var format = StreamFormat.remoteConfig
    /// The last version this client was told about.
    private var sent: Int64 = 0
    /// Events written while the client's socket was full; past the hub's queue limit it is cut off.
    private var writtenWhileFull = 0

    init(
        hub: StreamHub, published: PublishedTemplates, clientKeys: ClientKeys, metrics: ServerMetrics,
        cors: CORSPolicy, deadlines: ConnectionDeadlines, accessLog: AccessLog
    ) {
        self.cors = cors
        self.hub = hub
        self.published = published
        self.clientKeys = clientKeys
        self.metrics = metrics
        self.deadlines = deadlines
        self.accessLog = accessLog
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch mode {
        case .passthrough:
            context.fireChannelRead(data)
        case .streaming, .ended:
            break  // an SSE client sends nothing after its request
        case .reading:
            var bytes = unwrapInboundIn(data)
            if buffer.readableBytes == 0 {
                buffer = bytes
            } else {
                buffer.writeBuffer(&bytes)
            }
            switch StreamRequestHead.parse(buffer.readableBytesView) {
            case .needMore:
                return
            case .stream(let head):
                if start(head, context: context) {
                    buffer = ByteBuffer()
                } else {
                    passOn(context)
                }
            case .notStream:
                passOn(context)
            }
        }
    }

    /// From now on every byte goes to NIO's HTTP parser, starting with those read so far; this handler has
    /// nothing more to do on this connection and leaves it.
    private func passOn(_ context: ChannelHandlerContext) {
        mode = .passthrough
        let rest = buffer
        buffer = ByteBuffer()
        context.fireChannelRead(wrapInboundOut(rest))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Serves `head` as a stream if it can be without waiting; false leaves it to the router.
    private func start(_ head: StreamRequestHead, context: ChannelHandlerContext) -> Bool {
        let begin = ContinuousClock.now
        guard let secret = head.apiKey, !secret.isEmpty else { return false }
        var memo: ClientKeys.Memo?
        guard case .known(let key) = clientKeys.cached(secret: secret, memo: &memo), key.role == .client,
            key.project == head.project
        else { return false }
        // At a cap, the router answers the 503 (as it answers every error).
        guard case .success(let registry) = hub.reserve(on: context.eventLoop, keyId: key.id) else { return false }
        let lastEventID = head.lastEventID.flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
        mode = .streaming
        self.registry = registry
        project = head.project
        keyId = key.id
        format = head.format
        // Registered before the current version is read, so a publish in between is not missed.
        registry.add(self, project: project)
        becomeStream(context)

        let requestID = RequestID.make(incoming: head.requestID)
        let opening = StreamResponse.opening(
            lastEventID: lastEventID, current: published.entry(project)?.version ?? 0, format: format)
        sent = opening.sent
        var out = context.channel.allocator.buffer(capacity: 320)
        out.writeString(
            "HTTP/1.1 200 OK\r\n\(StreamResponse.headerLines)X-Request-Id: \(requestID)\r\nServer: remote-config\r\n")
        if let origin = head.webOrigin, cors.allows(origin) { out.writeString(CORSPolicy.answerLines(origin: origin)) }
        out.writeString("Transfer-Encoding: chunked\r\n\r\n")
        var first = StreamResponse.chunk(opening.text)
        out.writeBuffer(&first)
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)

        let duration = ContinuousClock.now - begin
        metrics.request(route: ClientPaths.stream, method: "GET", status: 200, duration: duration)
        accessLog.record(
            method: "GET", prefix: ClientPaths.projects, Substring(project), suffix: ClientPaths.streamSuffix,
            status: 200,
            duration: duration, requestID: requestID)
        return true
    }

    /// Lets go of what only requests use: the fetch fast path, the HTTP codec, a pending header timer. The
    /// connection's watcher reports the client's departure.
    private func becomeStream(_ context: ChannelHandlerContext) {
        let pipeline = context.pipeline.syncOperations
        deadlines.headReceived()
        deadlines.streamStarted()
        ConnectionWatcher.capSendBuffer(context.channel)
        if let watcher = try? pipeline.handler(type: ConnectionWatcher.self) {
            let channel = context.channel
            watcher.onInputClosed = { channel.close(promise: nil) }
        }
        if let front = try? pipeline.handler(type: FetchFront.self) { pipeline.removeHandler(front, promise: nil) }
        if let handler = try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) {
            pipeline.removeHandler(handler, promise: nil)
        }
        if let handler = try? pipeline.handler(type: HTTPResponseEncoder.self) {
            pipeline.removeHandler(handler, promise: nil)
        }
        if let handler = try? pipeline.handler(type: RequestLifecycleWatcher.self) {
            pipeline.removeHandler(handler, promise: nil)
        }
    }

    /// Writes `bytes` (an event for `version`, or a keep-alive when nil) unless the client has it already.
    func send(version: Int64?, bytes: StreamEventBytes) {
        guard mode == .streaming, let context else { return }
        if let version {
            guard version > sent else { return }
            sent = version
        }
        if !context.channel.isWritable {
            // Bytes wait in the server: its socket is full, the client does not read (a stream's channel is
            // unwritable as soon as anything waits, see `ConnectionWatcher.capSendBuffer`). Cut it off after
            // `queueLimit` more events rather than buffer without end; it catches up when it reconnects with
            // Last-Event-ID.
            writtenWhileFull += 1
            if writtenWhileFull > hub.queueLimit {
                mode = .ended
                context.close(promise: nil)
                return
            }
        }
        context.writeAndFlush(wrapOutboundOut(bytes[format]), promise: nil)
    }

    /// Ends the stream (its key was revoked, or the server stops): the last chunk, then the connection closes.
    func end() {
        guard mode == .streaming, let context else { return }
        mode = .ended
        // Closed at once, not when the write completes: a client that does not read would keep it open.
        // What the socket takes now is still delivered before the end of the connection.
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(staticString: "0\r\n\r\n")), promise: nil)
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { writtenWhileFull = 0 }
        context.fireChannelWritabilityChanged()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Server shutdown: a stream ends like this rather than being cut.
        if event is ChannelShouldQuiesceEvent, mode == .streaming || mode == .ended {
            end()
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        leave()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        leave()
        self.context = nil
    }

    private func leave() {
        guard let registry else { return }
        self.registry = nil
        registry.remove(self, project: project)
        hub.release(keyId: keyId)
    }
}
