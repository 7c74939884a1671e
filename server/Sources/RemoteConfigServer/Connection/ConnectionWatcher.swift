import HTTPTypes
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

/// The front of every connection's pipeline: the first bytes of a request start its header timeout (the
/// byte-level half of `ConnectionDeadlines`), and the client closing its side is seen here, before the HTTP
/// handlers, which hold that event back while a request is in progress. `onInputClosed` says what that
/// means: a fetch waiting for its answer is abandoned, a stream's client has gone.
final class ConnectionWatcher: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let deadlines: ConnectionDeadlines
    var onInputClosed: () -> Void
    /// Whether the client closed its side, for work that outlives the event loop's view of the request (an
    /// impact estimate on its own thread asks it now and then).
    let clientLeft = NIOLockedValueBox(false)

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

    /// The flag that says whether `channel`'s client has closed its side; nil on a channel that is not one of
    /// this server's connections (in-process tests).
    static func clientLeft(_ channel: any Channel) async -> NIOLockedValueBox<Bool>? {
        try? await channel.eventLoop.submit {
            try? channel.pipeline.syncOperations.handler(type: ConnectionWatcher.self).clientLeft
        }.get()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            clientLeft.withLockedValue { $0 = true }
            onInputClosed()
        }
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
