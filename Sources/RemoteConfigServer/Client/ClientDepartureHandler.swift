import NIOCore

/// Notices that the client of a stream has gone: the server keeps half-closed connections open (Hummingbird
/// allows remote half-closure), so without this an idle stream would be released only when a later
/// keep-alive write fails.
final class ClientDepartureHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private let onDeparture: @Sendable () -> Void

    init(onDeparture: @escaping @Sendable () -> Void) {
        self.onDeparture = onDeparture
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed {
            onDeparture()
        }
        context.fireUserInboundEventTriggered(event)
    }
}
