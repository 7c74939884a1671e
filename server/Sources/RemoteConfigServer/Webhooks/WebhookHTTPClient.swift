import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A deliberately small HTTP/1.1 client for webhook deliveries, on the NIO the server already runs.
///
/// Small on purpose: one POST per connection, the resolved address checked before connecting (and then
/// connected to, so a name cannot resolve to another address in between), no redirects, at most `answerLimit`
/// bytes of the answer read, one deadline for the whole exchange. A general client would need each of these
/// turned off or bolted on, and adds build time.
struct WebhookHTTPClient: Sendable {
    /// Whether loopback, private, link-local, multicast and unspecified destinations are allowed.
    let allowPrivate: Bool
    var timeout: Duration = .seconds(10)
    var answerLimit = 64 * 1024

    /// Why an attempt got no 2xx answer to read.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// POSTs `body` to `url` and returns the answer's status.
    func post(_ url: String, headers: [(String, String)], body: [UInt8]) async throws -> Int {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = WebhookDestination.hostName(parsed)
        else { throw Failure(description: "the webhook's url is not an http(s) URL") }
        let port = parsed.port ?? (scheme == "https" ? 443 : 80)
        let address: SocketAddress
        do {
            address = try await NIOThreadPool.singleton.runIfActive {
                try SocketAddress.makeAddressResolvingHost(host, port: port)
            }
        } catch {
            throw Failure(description: "could not resolve \(host)")
        }
        if !allowPrivate, let reason = WebhookDestination.forbidden(address) {
            throw Failure(description: "refused: \(host) resolves to \(reason) address")
        }
        var path = parsed.path.isEmpty ? "/" : parsed.path
        if let query = parsed.query { path += "?" + query }
        let tls = scheme == "https" ? try Self.tlsContext() : nil
        let isLiteral = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        let limit = answerLimit
        let group = MultiThreadedEventLoopGroup.singleton
        let eventLoop = group.next()
        let answer = eventLoop.makePromise(of: Int.self)
        let parts = timeout.components
        let deadlineAmount = TimeAmount.nanoseconds(parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
        let bootstrap = ClientBootstrap(group: eventLoop)
            .connectTimeout(deadlineAmount)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        let handler = try NIOSSLClientHandler(context: tls, serverHostname: isLiteral ? nil : host)
                        try channel.pipeline.syncOperations.addHandler(handler)
                    }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(AnswerReader(answer: answer, limit: limit))
                }
            }
        let deadline = eventLoop.scheduleTask(in: deadlineAmount) {
            answer.fail(Failure(description: "no answer within \(timeout)"))
        }
        defer { deadline.cancel() }
        let channel: Channel
        do {
            channel = try await bootstrap.connect(to: address).get()
        } catch {
            answer.fail(error)
            throw Failure(description: "could not connect to \(host):\(port): \(error)")
        }
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
        head.headers.add(name: "Host", value: parsed.port.map { "\(host):\($0)" } ?? host)
        head.headers.add(name: "User-Agent", value: "remote-config-webhooks")
        head.headers.add(name: "Content-Type", value: "application/json")
        head.headers.add(name: "Content-Length", value: String(body.count))
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        do {
            // A server shutting down stops waiting at once; the lease lets another server send it again.
            let status = try await withTaskCancellationHandler {
                try await answer.futureResult.get()
            } onCancel: {
                answer.fail(Failure(description: "the server stopped before an answer"))
            }
            channel.close(promise: nil)
            return status
        } catch {
            channel.close(promise: nil)
            if let failure = error as? Failure { throw failure }
            throw Failure(description: "\(error)")
        }
    }

    private static let tls = NIOLockedValueBox<NIOSSLContext?>(nil)

    /// One TLS context for every delivery: the system's trust roots, certificate and host name checked.
    static func tlsContext() throws -> NIOSSLContext {
        try tls.withLockedValue { context in
            if let context { return context }
            let made = try NIOSSLContext(configuration: .makeClientConfiguration())
            context = made
            return made
        }
    }
}

/// Reads an answer's status and at most `limit` bytes of its body, then completes `answer`.
private final class AnswerReader: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    let answer: EventLoopPromise<Int>
    let limit: Int
    var status: Int?
    var read = 0

    init(answer: EventLoopPromise<Int>, limit: Int) {
        self.answer = answer
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            // 1xx are interim answers: the final one follows.
            if head.status.code >= 200 { status = Int(head.status.code) }
        case .body(let buffer):
            read += buffer.readableBytes
            if read >= limit, let status {
                // Enough: the rest of a large answer is not read.
                answer.succeed(status)
                context.close(promise: nil)
            }
        case .end:
            if let status { answer.succeed(status) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let status {
            answer.succeed(status)
        } else {
            answer.fail(WebhookHTTPClient.Failure(description: "the connection closed before an answer"))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        answer.fail(WebhookHTTPClient.Failure(description: "\(error)"))
        context.close(promise: nil)
    }
}
