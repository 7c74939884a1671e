import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import RemoteConfigServer

#if canImport(Glibc)
    import Glibc
#endif

/// The listening socket's guard: connections past the room the open-files limit allows are closed as they
/// are accepted and counted; accept errors for want of descriptors are counted and handed on to NIO's
/// backoff.
@Suite struct AcceptGuardTests {
    static func metric(_ metrics: ServerMetrics, _ name: String) -> String? {
        String(decoding: metrics.render(streams: 0), as: UTF8.self).split(separator: "\n")
            .first { $0.hasPrefix(name + " ") }.map(String.init)
    }

    @Test func connectionsPastTheRoomAreClosedAtOnceAndALeavingOneMakesRoom() throws {
        let metrics = ServerMetrics()
        let server = EmbeddedChannel(handler: AcceptGuard(capacity: 2, metrics: metrics))
        let children = (0..<4).map { _ in EmbeddedChannel() }
        let closing = NIOLockedValueBox([false, false, false, false])
        for (index, child) in children.enumerated() {
            child.closeFuture.whenComplete { _ in closing.withLockedValue { $0[index] = true } }
        }
        for child in children.prefix(3) {
            try server.writeInbound(child as any Channel)
        }
        for child in children { child.embeddedEventLoop.run() }
        #expect(try server.readInbound(as: (any Channel).self) === children[0])
        #expect(try server.readInbound(as: (any Channel).self) === children[1])
        #expect(try server.readInbound(as: (any Channel).self) == nil, "the third is not handed on")
        #expect(
            closing.withLockedValue { $0 } == [false, false, true, false], "the one past the room is closed at once")
        #expect(Self.metric(metrics, "rc_connections_refused_total") == "rc_connections_refused_total 1")

        _ = try children[0].finish()
        try server.writeInbound(children[3] as any Channel)
        #expect(try server.readInbound(as: (any Channel).self) === children[3], "a closed one made room")
        #expect(Self.metric(metrics, "rc_connections_refused_total") == "rc_connections_refused_total 1")
    }

    @Test func acceptErrorsForWantOfDescriptorsAreCountedAndHandedOn() throws {
        let metrics = ServerMetrics()
        let server = EmbeddedChannel(handler: AcceptGuard(capacity: 2, metrics: metrics))
        server.pipeline.fireErrorCaught(IOError(errnoCode: EMFILE, reason: "accept"))
        // Handed on (to NIO's AcceptBackoffHandler in a real server): here it reaches the pipeline's end.
        #expect(throws: IOError.self) { try server.throwIfErrorCaught() }
        server.pipeline.fireErrorCaught(IOError(errnoCode: ECONNABORTED, reason: "accept"))
        #expect(throws: IOError.self) { try server.throwIfErrorCaught() }
        #expect(Self.metric(metrics, "rc_accept_errors_total") == "rc_accept_errors_total 1")
    }
}
