import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes connections that send nothing: one that has not completed a request head within
/// `headerTimeout` of opening (or of the first byte of its next request), and a keep-alive connection
/// with no request in flight for `idleTimeout`. A request in flight, an open stream included, is never
/// timed out here.
///
/// Two handlers share one of these: `ConnectionWatcher` at the front of the pipeline sees bytes arrive,
/// `RequestLifecycleWatcher` after the HTTP codec sees request heads and response ends. Both run on the
/// connection's event loop, which is the only place this object is touched.
final class ConnectionDeadlines {
    private let headerTimeout: TimeAmount
    private let idleTimeout: TimeAmount
    private var requestsInFlight = 0
    private var waitingForHead = true
    /// When the connection is closed unless something happens first; nil while a request is in flight.
    private var deadline: NIODeadline?
    private var timer: Scheduled<Void>?
    private var timerFires: NIODeadline?

    init(headerTimeout: TimeAmount, idleTimeout: TimeAmount) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
    }

    func connectionOpened(_ channel: any Channel) {
        arm(headerTimeout, channel)
    }

    func bytesArrived(_ channel: any Channel) {
        guard requestsInFlight == 0, !waitingForHead else { return }
        waitingForHead = true
        arm(headerTimeout, channel)
    }

    func headReceived() {
        requestsInFlight += 1
        waitingForHead = false
        deadline = nil
    }

    func responseEnded(_ channel: any Channel) {
        requestsInFlight = max(0, requestsInFlight - 1)
        if requestsInFlight == 0 {
            waitingForHead = false
            arm(idleTimeout, channel)
        }
    }

    func connectionClosed() {
        cancelTimer()
    }

    /// The request in flight is a stream, which may stay open for hours: no timer is needed until it ends.
    func streamStarted() {
        cancelTimer()
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerFires = nil
        deadline = nil
    }

    /// Moves the deadline; a timer is scheduled only when none is pending, and checks again when it fires,
    /// so a busy connection does not schedule a task per request.
    private func arm(_ timeout: TimeAmount, _ channel: any Channel) {
        let when = NIODeadline.now() + timeout
        deadline = when
        if let timerFires, timerFires <= when { return }
        timer?.cancel()
        schedule(at: when, channel)
    }

    private func schedule(at when: NIODeadline, _ channel: any Channel) {
        let eventLoop = channel.eventLoop
        let bound = NIOLoopBound(self, eventLoop: eventLoop)
        timerFires = when
        timer = eventLoop.assumeIsolated().scheduleTask(deadline: when) {
            bound.value.fire(channel)
        }
    }

    private func fire(_ channel: any Channel) {
        timer = nil
        timerFires = nil
        guard let deadline else { return }
        if deadline <= .now() {
            channel.close(promise: nil)
        } else {
            schedule(at: deadline, channel)
        }
    }
}

/// The front of every connection's pipeline: the first bytes of a request start its header timeout (the
/// byte-level half of `ConnectionDeadlines`), and the client closing its side is seen here, before the HTTP
/// handlers, which hold that event back while a request is in progress. `onInputClosed` says what that
/// means: a fetch waiting for its answer is abandoned, a stream's client has gone.
final class ConnectionWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let deadlines: ConnectionDeadlines
    var onInputClosed: () -> Void

    init(deadlines: ConnectionDeadlines, onInputClosed: @escaping () -> Void = {}) {
        self.deadlines = deadlines
        self.onInputClosed = onInputClosed
    }

    /// Makes `channel` a stream's: `onDeparture` runs when its client closes its side, and what only
    /// requests use (the fetch fast path, a pending header timer) is let go, so that each of the
    /// thousands of idle streams a server holds costs less memory. Does nothing on a channel that is not
    /// one of this server's connections (in-process tests).
    static func becomeStream(_ channel: any Channel, onDeparture: @escaping @Sendable () -> Void) async throws {
        try await channel.eventLoop.submit {
            let pipeline = channel.pipeline.syncOperations
            guard let watcher = try? pipeline.handler(type: ConnectionWatcher.self) else { return }
            capSendBuffer(channel)
            watcher.onInputClosed = onDeparture
            watcher.deadlines.streamStarted()
            if let front = try? pipeline.handler(type: FetchFront.self) {
                pipeline.removeHandler(front, promise: nil)
            }
        }.get()
    }

    /// The kernel send buffer of a stream's socket. Left to itself, Linux grows it to megabytes for a client
    /// that does not read (2.8 MiB seen), and thousands of stalled streams would hold that much kernel memory
    /// each before the server notices; with this cap a stalled reader is cut off after a few hundred KiB.
    static let streamSendBuffer: SocketOptionValue = 64 * 1024

    /// What NIO holds of a stream's unsent bytes before it calls the channel unwritable: nothing. A stream
    /// then counts the events written while anything waits (its socket is full), and is dropped after the
    /// hub's queue limit of them, as documented; with NIO's default 64 KiB it held about 800 events first.
    static let streamWaterMark = ChannelOptions.Types.WriteBufferWaterMark(low: 1, high: 1)

    /// Caps `channel`'s kernel send buffer at `streamSendBuffer` and NIO's at `streamWaterMark` (on the
    /// channel's event loop).
    static func capSendBuffer(_ channel: any Channel) {
        try? channel.syncOptions?.setOption(ChannelOptions.socketOption(.so_sndbuf), value: streamSendBuffer)
        try? channel.syncOptions?.setOption(ChannelOptions.writeBufferWaterMark, value: streamWaterMark)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { onInputClosed() }
        context.fireUserInboundEventTriggered(event)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { deadlines.connectionOpened(context.channel) }
    }

    func channelActive(context: ChannelHandlerContext) {
        deadlines.connectionOpened(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadlines.connectionClosed()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadlines.bytesArrived(context.channel)
        context.fireChannelRead(data)
    }
}

/// The HTTP-level half of `ConnectionDeadlines`: a complete head stops the clock, a response's end starts
/// the idle clock.
final class RequestLifecycleWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let deadlines: ConnectionDeadlines

    init(deadlines: ConnectionDeadlines) {
        self.deadlines = deadlines
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { deadlines.headReceived() }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { deadlines.responseEnded(context.channel) }
        context.write(data, promise: promise)
    }
}
