import HTTPTypes
import NIOCore
import NIOHTTP1

/// Answers a request NIO's HTTP parser rejects (a head over the 80 KiB limit, malformed HTTP) in the API's
/// JSON error shape, then lets the connection close.
///
/// Hummingbird answers such a request with a bare `400` and no body; this handler sits between NIO's
/// parser and Hummingbird, answers first, and keeps the error from reaching Hummingbird so only one answer
/// goes out. As with NIO's own protocol error handler, no answer is written when a response has already
/// started on the connection: the parser's error closes it either way.
final class ProtocolErrorResponder: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let accessLog: AccessLog
    private var hasUnterminatedResponse = false
    private var answered = false
    /// When the connection's current request began (its first byte read after the last answer).
    private var requestStart: ContinuousClock.Instant?

    /// A responder that records each answer it gives in `accessLog`.
    init(accessLog: AccessLog) {
        self.accessLog = accessLog
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if requestStart == nil, !hasUnterminatedResponse { requestStart = .now }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        // A request cut off by its client's hang-up has nobody to answer.
        guard !hasUnterminatedResponse, !answered, !ClientHangUp.matches(parserError) else {
            context.fireErrorCaught(error)
            return
        }
        answered = true
        let (status, body) = Self.answer(parserError)
        let requestID = RequestID.make()
        let headers = HTTPHeaders([
            ("Content-Type", "application/json; charset=utf-8"), ("Content-Length", String(body.readableBytes)),
            (HTTPField.Name.requestID.rawName, requestID), ("Connection", "close"),
        ])
        // Nothing of a request the parser refused is known for sure, not even its method: "-" for both, as
        // nginx logs such a request.
        accessLog.record(
            method: "-", path: "-", status: Int(status.code),
            duration: requestStart.map { .now - $0 } ?? .zero, requestID: requestID)
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where (100..<200).contains(head.status.code): break  // 1xx: the response follows
        case .head: hasUnterminatedResponse = true
        case .body: break
        case .end:
            hasUnterminatedResponse = false
            requestStart = nil
        }
        context.write(data, promise: promise)
    }

    /// The status and JSON body for a parser error, from the one mapping (fixed text: nothing of the request
    /// is echoed).
    static func answer(_ error: HTTPParserError) -> (HTTPResponseStatus, ByteBuffer) {
        let apiError = APIError(mapping: error)
        return (HTTPResponseStatus(statusCode: Int(apiError.status.code)), apiError.encodedBody())
    }
}
