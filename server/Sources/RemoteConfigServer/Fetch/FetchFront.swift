import HTTPTypes
import NIOCore

/// Answers `remoteConfig:fetch` and the OFREP evaluations straight from the connection's bytes, ahead of NIO's HTTP/1 pipeline,
/// Hummingbird's request task, router and middleware: a fetch costs reading its head, an evaluation of the
/// template's conditions and one write of remembered bytes.
///
/// It takes only plain fetches (`FetchRequestHead`); the first request that is anything else, and every
/// byte after it, goes to NIO's HTTP parser and the router untouched, so that one pipeline sees a
/// connection's requests from there on and answers stay in order. The answer is `FetchEndpoint`'s, as
/// through the router; this handler adds what the router's middleware adds elsewhere (the request id,
/// metrics, the access log) and keeps the connection's deadlines. A fetch that must wait (a key this
/// server has not seen, a template at the limits) is answered from a task, and bytes that arrive meanwhile
/// wait for it.
final class FetchFront: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = ByteBuffer

    private enum Mode {
        /// Reading fetches; `buffer` holds the start of the next one.
        case reading
        /// A fetch answered from a task; bytes wait in `buffer`.
        case answering
        /// Everything goes to NIO's HTTP pipeline from now on.
        case passthrough
        /// Answered `Connection: close`: whatever else arrives is dropped.
        case closing
    }

    private let endpoint: FetchEndpoint
    private let deadlines: ConnectionDeadlines
    private let accessLog: AccessLog
    private var mode = Mode.reading
    private var buffer = ByteBuffer()
    /// Whether the head of the request in `buffer` has been seen (its header timeout is over).
    private var headSeen = false
    private var quiesceHeld = false
    private var removed = false
    /// The task answering a fetch that had to wait; cancelled when the client hangs up.
    private var answering: Task<Void, Never>?
    /// A read the channel asked for while reading was held back.
    private var readPending = false
    /// The client key of this connection's last fetch (an app sends the same one every time).
    private var keyMemo: ClientKeys.Memo?
    /// Whether bytes went on to NIO's pipeline since the last read-complete (see `channelReadComplete`).
    private var forwardedRead = false
    /// This connection's `Date` and `Server` lines, as the router's answers carry them.
    private var stamp = AnswerStamp()
    /// This connection's loop's answers, flushed together after each pass over its ready connections.
    private let flushes: AnswerFlushes
    /// Whether a close waits for the answers written before it (see `close(context:mode:promise:)`).
    private var closeWaiting = false

    /// Made on the connection's event loop, whose `AnswerFlushes` it takes.
    init(endpoint: FetchEndpoint, deadlines: ConnectionDeadlines, accessLog: AccessLog, eventLoop: any EventLoop) {
        self.flushes = AnswerFlushes.current(on: eventLoop)
        self.endpoint = endpoint
        self.deadlines = deadlines
        self.accessLog = accessLog
    }

    /// The client closed its side: a fetch still waiting for its answer is for a client that left, and
    /// work not started for it is skipped (`ConnectionWatcher` sees this first, see there).
    func clientLeft() {
        if mode == .answering { answering?.cancel() }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
        answering?.cancel()
    }

    func channelInactive(context: ChannelHandlerContext) {
        answering?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch mode {
        case .passthrough:
            forwardedRead = true
            context.fireChannelRead(data)
        case .closing:
            break
        case .answering:
            var bytes = unwrapInboundIn(data)
            buffer.writeBuffer(&bytes)
        case .reading:
            var bytes = unwrapInboundIn(data)
            if buffer.readableBytes == 0 {
                buffer = bytes
            } else {
                buffer.writeBuffer(&bytes)
            }
            process(context: context)
        }
    }

    /// A read-complete goes on only after bytes did: a read this handler answered itself is nothing to the
    /// handlers behind it, and passing the event through all of them (the HTTP codec, Hummingbird's
    /// channel) cost about 4% of a fetch's CPU time.
    func channelReadComplete(context: ChannelHandlerContext) {
        guard forwardedRead || mode == .passthrough else { return }
        forwardedRead = false
        context.fireChannelReadComplete()
    }

    /// Reading stops while an answer waits for a task or for a client that does not read its answers:
    /// a client that sends fetch after fetch and never reads must not make the server buffer answers
    /// without end (NIO's pipeline behind us does the same for what it handles).
    func read(context: ChannelHandlerContext) {
        if holdsReads(context) {
            readPending = true
        } else {
            context.read()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if mode == .reading, context.channel.isWritable { process(context: context) }
        resumeReading(context)
        context.fireChannelWritabilityChanged()
    }

    private func holdsReads(_ context: ChannelHandlerContext) -> Bool {
        switch mode {
        case .passthrough, .closing: return false
        case .answering: return true
        case .reading:
            return !context.channel.isWritable
                || buffer.readableBytes > FetchRequestHead.maximumHeadLength + FetchRequestHead.maximumBodyLength
        }
    }

    private func resumeReading(_ context: ChannelHandlerContext) {
        if readPending, !holdsReads(context) {
            readPending = false
            context.read()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // Server shutdown: NIO's pipeline behind us closes a connection it sees as idle, and it does not see
        // our fetches, so hold the event until the fetch in progress is answered.
        if event is ChannelShouldQuiesceEvent, mode == .answering || (mode == .reading && buffer.readableBytes > 0) {
            quiesceHeld = true
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Answers every complete fetch in `buffer`, or hands the bytes on at the first request that is not one.
    private func process(context: ChannelHandlerContext) {
        defer { resumeReading(context) }
        // An answer is written only while the client takes them in; the rest wait in `buffer`.
        while mode == .reading, !removed, buffer.readableBytes > 0, context.channel.isWritable {
            switch FetchRequestHead.parse(buffer.readableBytesView) {
            case .needMore:
                return
            case .notFetch:
                mode = .passthrough
                let rest = buffer
                buffer = ByteBuffer()
                forwardedRead = true
                context.fireChannelRead(wrapInboundOut(rest))
                return
            case .fetch(let head):
                if !headSeen {
                    headSeen = true
                    deadlines.headReceived()
                }
                guard buffer.readableBytes >= head.headLength + head.contentLength else { return }
                buffer.moveReaderIndex(forwardBy: head.headLength)
                let body = buffer.readSlice(length: head.contentLength) ?? ByteBuffer()
                // Not `clear()`: `body` still shares the storage, so clearing would allocate a new one, and the
                // next read replaces an empty buffer anyway.
                if buffer.readableBytes == 0 { buffer = ByteBuffer() }
                headSeen = false
                answer(head, body: body, context: context)
            }
        }
        if mode == .reading, buffer.readableBytes == 0, quiesceHeld {
            quiesceHeld = false
            context.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
    }

    private func answer(_ head: FetchRequestHead, body: ByteBuffer, context: ChannelHandlerContext) {
        let start = ContinuousClock.now
        let route: ClientRoute =
            if !head.isOFREP {
                .fetch(project: Substring(head.project))
            } else if let key = head.flagKey {
                .ofrepFlag(key: Substring(key))
            } else {
                .ofrepFlags
            }
        let call = FetchCall(
            route: route, apiKeyHeader: head.apiKey, bearerToken: head.bearerToken,
            query: head.query.map { Substring($0) }, ifNoneMatch: head.ifNoneMatch, acceptsGzip: head.acceptsGzip,
            body: body, origin: head.origin)
        if let reply = endpoint.immediateReply(call, keyMemo: &keyMemo) {
            finish(head, route: route, start: start, reply: reply, context: context)
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
                handler.mode = .reading
                handler.finish(head, route: route, start: start, reply: reply, context: context)
                handler.process(context: context)
                // Bytes handed on here, outside a read, reach Hummingbird's request stream only with a
                // read-complete after them (it delivers reads in batches): without it they would wait for
                // the client's next bytes, which may never come.
                if handler.mode == .passthrough { context.fireChannelReadComplete() }
            }
        }
    }

    /// Bodies longer than this are written from their own buffers rather than copied after the head.
    static let gatherThreshold = 4096

    private func finish(
        _ head: FetchRequestHead, route: ClientRoute, start: ContinuousClock.Instant, reply: FetchReply,
        context: ChannelHandlerContext
    ) {
        let requestID = RequestID.make(incoming: head.requestID)
        let status = Int(reply.status.code)
        let duration = ContinuousClock.now - start
        if (100..<600).contains(status) {
            endpoint.metrics.clientRequest(route.kind, status: status, duration: duration)
        }
        route.record(in: accessLog, status: status, duration: duration, requestID: requestID)
        deadlines.responseEnded(context.channel)
        guard !removed, context.channel.isActive else { return }
        if status == 499 {
            context.close(promise: nil)
            return
        }
        let close = head.close
        let body = reply.status == .notModified ? nil : reply.body
        let tail = reply.status == .notModified ? nil : reply.bodyTail
        let length = (body?.readableBytes ?? 0) + (tail?.readableBytes ?? 0)
        // One write: head, request id and body together. A large remembered body is not copied into the
        // head's buffer but handed to the same flush, which sends all the buffers with one `writev`.
        let gather = length > Self.gatherThreshold
        var out = context.channel.allocator.buffer(capacity: 384 + (gather ? 0 : length))
        if let rendered = reply.renderedHead {
            out.writeImmutableBuffer(rendered)
        } else {
            if let rendered = reply.renderedFields {
                out.writeImmutableBuffer(rendered)
            } else {
                out.writeString("HTTP/1.1 \(status) \(reply.status.reasonPhrase)\r\n")
                for field in reply.headers where field.name != .connection {
                    out.writeString("\(field.name.rawName): \(field.value)\r\n")
                }
            }
            if reply.status != .notModified {
                out.writeStaticString("Content-Length: ")
                out.writeString(String(length))
                out.writeStaticString("\r\n")
            }
        }
        if let origin = head.webOrigin, endpoint.cors.allows(origin) {
            out.writeString(CORSPolicy.answerLines(origin: origin))
        }
        out.writeString(HTTPField.Name.requestID.rawName)
        out.writeStaticString(": ")
        out.writeString(requestID)
        out.writeStaticString("\r\n")
        stamp.write(into: &out)
        out.writeStaticString(close ? "Connection: close\r\n\r\n" : "\r\n")
        if gather {
            context.write(wrapOutboundOut(out), promise: nil)
            // The last part goes with the flush below.
            out = body ?? ByteBuffer()
            if let tail {
                context.write(wrapOutboundOut(out), promise: nil)
                out = tail
            }
        } else {
            if let body { out.writeImmutableBuffer(body) }
            if let tail { out.writeImmutableBuffer(tail) }
        }
        if close {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(out)).whenComplete { _ in channel.close(promise: nil) }
            mode = .closing
            buffer = ByteBuffer()
        } else {
            context.write(wrapOutboundOut(out), promise: nil)
            flushes.add(self, context)
        }
    }

    /// How long a close waits for answers written before it to reach a client that does not read them.
    static let closeGrace = TimeAmount.seconds(5)

    /// A close, whoever asks for it (a stop's quiesce, Hummingbird's connection task, a timeout), first lets
    /// the answers written before it reach the socket, for at most `closeGrace`: NIO drops what the socket
    /// has not taken yet, and `AnswerFlushes` flushes only after the loop's pass. A second close is at once.
    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode == .all, !closeWaiting, context.channel.isActive else {
            context.flush()
            context.close(mode: mode, promise: promise)
            return
        }
        closeWaiting = true
        // An empty write completes once every write before it has reached the socket.
        let sent = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer()), promise: sent)
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        let giveUp = context.eventLoop.assumeIsolated().scheduleTask(in: Self.closeGrace) {
            bound.value.channel.close(promise: nil)
        }
        sent.futureResult.whenComplete { _ in
            giveUp.cancel()
            bound.value.close(mode: mode, promise: promise)
        }
    }

    /// Sends the answers written since the last flush (`AnswerFlushes`).
    func flushDeferred(_ context: ChannelHandlerContext) {
        // Once this handler is out of the pipeline its context no longer leads anywhere; the channel does.
        if removed { context.channel.flush() } else { context.flush() }
    }
}
