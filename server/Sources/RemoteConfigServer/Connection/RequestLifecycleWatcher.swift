import HTTPTypes
import NIOCore
import NIOHTTPTypes

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
