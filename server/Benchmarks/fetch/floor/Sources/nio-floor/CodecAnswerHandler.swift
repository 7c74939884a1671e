import NIOCore
import NIOHTTP1

/// Answers each request NIO's HTTP codec decoded with the answer's head and body, written as response parts for
/// its encoder: what a server costs with SwiftNIO and its HTTP/1.1 codec, as Hummingbird's channel has it.
final class CodecAnswerHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let answer: Answer
    private let log: AccessLog?
    /// The head of the request being read, kept for its log line.
    private var request: HTTPRequestHead?

    /// A handler answering `answer` to every request, logging each to `log` when given.
    init(answer: Answer, log: AccessLog?) {
        self.answer = answer
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if log != nil { request = head }
        case .body:
            break
        case .end:
            if let log, let request = request.take() {
                log.append(
                    method: request.method.rawValue, uri: request.uri, status: Int(answer.head.status.code),
                    bytes: answer.body.readableBytes)
            }
            context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(answer.body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
