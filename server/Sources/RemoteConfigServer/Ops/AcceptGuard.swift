import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sits at the front of the listening socket's pipeline and keeps the process inside its open-files limit:
/// a connection beyond `capacity` is closed as soon as it is accepted, so its client fails fast instead of
/// waiting in the kernel's backlog, and the descriptors kept for the database pool and logs stay free.
///
/// If accepting fails anyway because descriptors ran out (something else used the reserve), the error is
/// counted and handed on to NIO's `AcceptBackoffHandler`, which pauses accepting for a second rather than
/// retrying at once: a full backlog would otherwise make the event loop spin on `accept`.
final class AcceptGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = any Channel
    typealias InboundOut = any Channel

    /// Client connections open now, shared by every event loop's child channels.
    private let open = NIOLockedValueBox(0)
    private let capacity: Int
    private let metrics: ServerMetrics

    init(capacity: Int, metrics: ServerMetrics) {
        self.capacity = capacity
        self.metrics = metrics
    }

    /// Adds a guard at the front of `server`'s pipeline, and NIO's accept backoff behind it if the bootstrap
    /// did not install one (it does for async binds, which Hummingbird uses: this keeps it true).
    static func install(on server: any Channel, capacity: Int, metrics: ServerMetrics) async throws {
        try await server.eventLoop.submit {
            let pipeline = server.pipeline.syncOperations
            let guardHandler = AcceptGuard(capacity: capacity, metrics: metrics)
            try pipeline.addHandler(guardHandler, position: .first)
            if (try? pipeline.handler(type: AcceptBackoffHandler.self)) == nil {
                let backoff = AcceptBackoffHandler(shouldForwardIOErrorCaught: false)
                try pipeline.addHandler(backoff, position: .after(guardHandler))
            }
        }.get()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let child = unwrapInboundIn(data)
        let admitted = open.withLockedValue { open in
            guard open < capacity else { return false }
            open += 1
            return true
        }
        guard admitted else {
            metrics.connectionRefused()
            // Not registered yet: closing it here closes the socket, and the client sees its connection end.
            child.close(promise: nil)
            return
        }
        let open = self.open
        child.closeFuture.whenComplete { _ in open.withLockedValue { $0 -= 1 } }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode) {
            metrics.acceptFailed()
        }
        context.fireErrorCaught(error)
    }
}
