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
/// What to answer is `StreamEndpoint`'s, as through the router; this handler reads the request
/// (`StreamRequestHead`), writes the answer's bytes and keeps the connection's deadlines. A key this server
/// must look up first is looked up from a task. An error answer (a bad key, a cap reached), a request in a
/// form the parser leaves alone, and every byte after it go to NIO's HTTP parser and the router untouched,
/// which answer through the same endpoint.
final class StreamFront: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Mode {
        case reading
        /// The client key is being looked up; bytes wait in `buffer`.
        case lookingUp
        case passthrough
        case streaming
        case ended
    }

    private let endpoint: StreamEndpoint
    private let deadlines: ConnectionDeadlines
    private var mode = Mode.reading
    private var buffer = ByteBuffer()
    private var context: ChannelHandlerContext?
    /// The task looking up a key this server has not seen; cancelled when the connection goes.
    private var lookingUp: Task<Void, Never>?
    /// The loop's registry this stream is in, while it streams.
    private var registry: LoopStreams?
    private var project = ""
    private(set) var keyId = ""
    /// What the client has been told, in which format.
    private var cursor = StreamCursor(format: .remoteConfig, sent: 0)
    /// Events written while the client's socket was full; past the hub's queue limit it is cut off.
    private var writtenWhileFull = 0

    init(endpoint: StreamEndpoint, deadlines: ConnectionDeadlines) {
        self.endpoint = endpoint
        self.deadlines = deadlines
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
        case .reading, .lookingUp:
            var bytes = unwrapInboundIn(data)
            if buffer.readableBytes == 0 {
                buffer = bytes
            } else {
                buffer.writeBuffer(&bytes)
            }
            guard mode == .reading else { return }
            switch StreamRequestHead.parse(buffer.readableBytesView) {
            case .needMore:
                return
            case .stream(let head):
                answer(head, context: context)
            case .notStream:
                passOn(context)
            }
        }
    }

    /// From now on every byte goes to NIO's HTTP parser, starting with those read so far; this handler has
    /// nothing more to do on this connection and leaves it.
    private func passOn(_ context: ChannelHandlerContext, outsideRead: Bool = false) {
        mode = .passthrough
        let rest = buffer
        buffer = ByteBuffer()
        context.fireChannelRead(wrapInboundOut(rest))
        // Bytes handed on outside a read reach Hummingbird's request stream only with a read-complete after
        // them (it delivers reads in batches): without it they would wait for bytes that never come.
        if outsideRead { context.fireChannelReadComplete() }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Streams what the endpoint admits; hands on what it answers with an error.
    private func answer(_ head: StreamRequestHead, context: ChannelHandlerContext) {
        let begin = ContinuousClock.now
        deadlines.headReceived()
        let call = StreamCall(
            project: head.project, secret: head.apiKey, format: head.format, lastEventID: head.lastEventID)
        var memo: ClientKeys.Memo?
        let admission: StreamEndpoint.Admission?
        do {
            admission = try endpoint.immediateAdmission(call, keyMemo: &memo)
        } catch {
            passOn(context)
            return
        }
        if let admission {
            start(admission, head, begin: begin, context: context)
            return
        }
        mode = .lookingUp
        let endpoint = self.endpoint
        let eventLoop = context.eventLoop
        let bound = NIOLoopBound((self, context), eventLoop: eventLoop)
        lookingUp = Task {
            let admission = try? await endpoint.admission(call)
            eventLoop.execute {
                let (handler, context) = bound.value
                handler.lookingUp = nil
                guard handler.mode == .lookingUp, context.channel.isActive else { return }
                if let admission {
                    handler.start(admission, head, begin: begin, context: context, outsideRead: true)
                } else {
                    handler.passOn(context, outsideRead: true)
                }
            }
        }
    }

    /// Serves an admitted stream: a slot, the registry of this loop, the head and the opening in one write.
    /// At a cap it hands the request on, for the router to answer the refusal.
    private func start(
        _ admission: StreamEndpoint.Admission, _ head: StreamRequestHead, begin: ContinuousClock.Instant,
        context: ChannelHandlerContext, outsideRead: Bool = false
    ) {
        guard case .success(let registry) = endpoint.hub.reserve(on: context.eventLoop, keyId: admission.keyId)
        else {
            passOn(context, outsideRead: outsideRead)
            return
        }
        mode = .streaming
        buffer = ByteBuffer()
        self.registry = registry
        project = admission.project
        keyId = admission.keyId
        // Registered before the current version is read, so a publish in between is not missed.
        registry.add(self, project: project)
        becomeStream(context)

        let requestID = RequestID.make(incoming: head.requestID)
        let (opening, cursor) = endpoint.opening(admission)
        self.cursor = cursor
        var out = context.channel.allocator.buffer(capacity: 320)
        out.writeString(StreamResponse.statusLine)
        out.writeString(StreamResponse.headerLines)
        out.writeString(StreamResponse.headerLine(.requestID, requestID))
        out.writeString(StreamResponse.headerLine(.date, HTTPDate.now()))
        if let origin = head.webOrigin, endpoint.cors.allows(origin) {
            out.writeString(CORSPolicy.answerLines(origin: origin))
        }
        out.writeString(StreamResponse.framingLines)
        var first = StreamResponse.chunk(opening)
        out.writeBuffer(&first)
        context.writeAndFlush(wrapOutboundOut(out), promise: nil)
        endpoint.recordOpened(admission, requestID: requestID, duration: ContinuousClock.now - begin)
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
        if let version, !cursor.takes(version) { return }
        if !context.channel.isWritable {
            // Bytes wait in the server: its socket is full, the client does not read (a stream's channel is
            // unwritable as soon as anything waits, see `ConnectionWatcher.capSendBuffer`). Cut it off after
            // `queueLimit` more events rather than buffer without end; it catches up when it reconnects with
            // Last-Event-ID.
            writtenWhileFull += 1
            if writtenWhileFull > endpoint.hub.queueLimit {
                mode = .ended
                context.close(promise: nil)
                return
            }
        }
        context.writeAndFlush(wrapOutboundOut(bytes[cursor.format]), promise: nil)
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
        lookingUp?.cancel()
        leave()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        lookingUp?.cancel()
        leave()
        self.context = nil
    }

    private func leave() {
        guard let registry else { return }
        self.registry = nil
        registry.remove(self, project: project)
        endpoint.hub.release(keyId: keyId)
    }
}
