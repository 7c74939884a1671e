import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 channel with a small first read buffer.
///
/// Each connection keeps its last read buffer for the next read. NIO's default first buffer is 2 KiB, which
/// an idle realtime stream (thousands per server) would hold for hours; requests here are mostly a few
/// hundred bytes, and the buffer still grows for larger bodies.
struct LeanHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.setOption(
            ChannelOptions.recvAllocator,
            value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536)
        ).flatMap { base.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with a small first read buffer per connection.
    static var leanHTTP1: HTTPServerBuilder {
        .init { responder in LeanHTTP1Channel(base: HTTP1Channel(responder: responder)) }
    }
}
