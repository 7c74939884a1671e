import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import RemoteConfigCore

/// A deliberately small HTTP/1.1 client for the server's own calls out: webhook deliveries and the App Store
/// lookup, on the NIO the server already runs.
///
/// Small on purpose: one request per connection, the resolved address checked before connecting (and then
/// connected to, so a name cannot resolve to another address in between), no redirects, no decompression (a
/// body is counted as the bytes that arrive, so a small gzip of a huge body is never unpacked), at most
/// `answerLimit` bytes of the answer read, one deadline for the whole exchange. A general client would need each
/// of these turned off or bolted on, and adds build time.
struct OutboundHTTPClient: Sendable {
    /// Whether loopback, private, link-local, multicast and unspecified destinations are allowed.
    let allowPrivate: Bool
    var timeout: Duration = .seconds(10)
    var answerLimit = 64 * 1024
    var userAgent = "remote-config"

    /// What came back: the status, the head, and at most `answerLimit` bytes of the body.
    struct Answer: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: [UInt8]
        /// The body went on past `answerLimit`; the rest was not read.
        let cut: Bool
    }

    /// Why a request got no answer to read.
    struct Failure: Error, CustomStringConvertible {
        let description: String
        /// No answer within `timeout`.
        var timedOut = false
    }

    /// POSTs `body` to `url` and returns the answer's status.
    func post(_ url: String, headers: [(String, String)], body: [UInt8]) async throws -> Int {
        try await send(.POST, url, headers: [("Content-Type", "application/json")] + headers, body: body).status
    }

    /// Sends one request and reads its answer, within `timeout` in all.
    func send(_ method: HTTPMethod, _ url: String, headers: [(String, String)], body: [UInt8]? = nil) async throws
        -> Answer
    {
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = WebhookDestination.hostName(parsed)
        else { throw Failure(description: "\(url) is not an http(s) URL") }
        let port = parsed.port ?? (scheme == "https" ? 443 : 80)
        let addresses: [SocketAddress]
        do {
            addresses = try await NIOThreadPool.singleton.runIfActive {
                try WebhookDestination.resolve(host, port: port)
            }
        } catch {
            throw Failure(description: "could not resolve \(host)")
        }
        // The check creation applied, on what the name resolves to now: every address, since any may be used.
        if !allowPrivate, let reason = WebhookDestination.refusal(host: host, addresses: addresses) {
            throw Failure(description: "refused: \(host) points at \(reason)")
        }
        let address = addresses[0]
        var path = parsed.path.isEmpty ? "/" : parsed.path
        if let query = parsed.query { path += "?" + query }
        let tls = scheme == "https" ? try Self.tlsContext() : nil
        let isLiteral = (try? SocketAddress(ipAddress: host, port: 0)) != nil
        let limit = answerLimit
        let group = MultiThreadedEventLoopGroup.singleton
        let eventLoop = group.next()
        let answer = eventLoop.makePromise(of: Answer.self)
        let deadlineAmount = TimeAmount.nanoseconds(timeout.inNanoseconds)
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
        let timeout = self.timeout
        let deadline = eventLoop.scheduleTask(in: deadlineAmount) {
            answer.fail(Failure(description: "no answer within \(timeout)", timedOut: true))
        }
        defer { deadline.cancel() }
        let channel: Channel
        do {
            channel = try await bootstrap.connect(to: address).get()
        } catch {
            answer.fail(error)
            throw Failure(description: "could not connect to \(host):\(port): \(error)")
        }
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "Host", value: parsed.port.map { "\(host):\($0)" } ?? host)
        head.headers.add(name: "User-Agent", value: userAgent)
        if let body { head.headers.add(name: "Content-Length", value: String(body.count)) }
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        if let body { channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(bytes: body))), promise: nil) }
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        do {
            // A caller that goes away (a stopping server) ends the exchange at once rather than at its deadline:
            // a receiver that never answers must not hold a shutdown for the attempt's whole timeout.
            let answer = try await withTaskCancellationHandler {
                try await answer.futureResult.get()
            } onCancel: {
                answer.fail(Failure(description: "cancelled: the server is stopping"))
            }
            channel.close(promise: nil)
            return answer
        } catch {
            channel.close(promise: nil)
            if let failure = error as? Failure { throw failure }
            throw Failure(description: "\(error)")
        }
    }

    private static let tls = NIOLockedValueBox<NIOSSLContext?>(nil)

    /// One TLS context for every call: the system's trust roots, certificate and host name checked.
    static func tlsContext() throws -> NIOSSLContext {
        try tls.withLockedValue { context in
            if let context { return context }
            let made = try NIOSSLContext(configuration: .makeClientConfiguration())
            context = made
            return made
        }
    }
}

/// Reads an answer's head and at most `limit` bytes of its body, then completes `answer`.
private final class AnswerReader: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart

    let answer: EventLoopPromise<OutboundHTTPClient.Answer>
    let limit: Int
    var head: HTTPResponseHead?
    var body: [UInt8] = []
    var done = false

    init(answer: EventLoopPromise<OutboundHTTPClient.Answer>, limit: Int) {
        self.answer = answer
        self.limit = limit
    }

    private func finish(cut: Bool) {
        guard !done, let head else { return }
        done = true
        answer.succeed(.init(status: Int(head.status.code), headers: head.headers, body: body, cut: cut))
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let received):
            // 1xx are interim answers: the final one follows.
            if received.status.code >= 200 { head = received }
        case .body(var buffer):
            guard !done, head != nil else { return }
            let room = limit - body.count
            if buffer.readableBytes > room {
                body += buffer.readBytes(length: room) ?? []
                // Enough: the rest of a large answer is not read.
                finish(cut: true)
                context.close(promise: nil)
            } else {
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            }
        case .end:
            finish(cut: false)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if head != nil {
            finish(cut: false)
        } else {
            answer.fail(OutboundHTTPClient.Failure(description: "the connection closed before an answer"))
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        answer.fail(OutboundHTTPClient.Failure(description: "\(error)"))
        context.close(promise: nil)
    }
}
