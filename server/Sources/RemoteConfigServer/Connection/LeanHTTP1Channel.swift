import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1.1 channel with what this server adds to every connection: a small first read
/// buffer, header and idle timeouts, and the fetch and stream fast paths.
///
/// Each connection keeps its last read buffer for the next read. NIO's default first buffer is 2 KiB, which
/// an idle realtime stream (thousands per server) would hold for hours; requests here are mostly a few
/// hundred bytes, and the buffer still grows for larger bodies.
struct LeanHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let fetch: FetchEndpoint?
    let stream: StreamEndpoint?
    let accessLog: AccessLog
    let headerTimeout: Duration
    let idleTimeout: Duration

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.setOption(
            ChannelOptions.recvAllocator,
            value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536)
        ).flatMap {
            base.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let deadlines = ConnectionDeadlines(
                headerTimeout: .init(headerTimeout), idleTimeout: .init(idleTimeout))
            let front = fetch.map {
                FetchFront(endpoint: $0, deadlines: deadlines, accessLog: accessLog, eventLoop: channel.eventLoop)
            }
            // Held strongly (nothing the front holds leads back to the watcher): a weak reference gives the
            // front a side table, and then each of the several retains a request makes of it takes the
            // runtime's slow path.
            let watcher = ConnectionWatcher(deadlines: deadlines) { front?.clientLeft() }
            try pipeline.addHandler(watcher, position: .first)
            if let front {
                try pipeline.addHandler(front, position: .after(watcher))
            }
            if let stream {
                let streamFront = StreamFront(endpoint: stream, deadlines: deadlines)
                if let front {
                    try pipeline.addHandler(streamFront, position: .after(front))
                } else {
                    try pipeline.addHandler(streamFront, position: .after(watcher))
                }
            }
            let codec = try pipeline.handler(type: HTTP1ToHTTPServerCodec.self)
            try pipeline.addHandler(ProtocolErrorResponder(accessLog: accessLog), position: .before(codec))
            try pipeline.addHandler(RequestLifecycleWatcher(deadlines: deadlines), position: .after(codec))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with a small first read buffer per connection, connection timeouts and, when `fetch` and
    /// `stream` are given, fetches and streams served on the event loop.
    static func leanHTTP1(
        fetch: FetchEndpoint?, stream: StreamEndpoint? = nil, accessLog: AccessLog, headerTimeout: Duration,
        idleTimeout: Duration
    ) -> HTTPServerBuilder {
        .init { responder in
            LeanHTTP1Channel(
                base: HTTP1Channel(responder: responder), fetch: fetch, stream: stream, accessLog: accessLog,
                headerTimeout: headerTimeout,
                idleTimeout: idleTimeout)
        }
    }
}
