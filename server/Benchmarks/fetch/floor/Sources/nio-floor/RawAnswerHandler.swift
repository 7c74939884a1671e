import NIOCore

/// Reads requests as bytes, finds each one's end itself (the head's blank line and its `Content-Length` body)
/// and writes the whole preencoded answer for it: what a server costs with SwiftNIO but no HTTP codec.
final class RawAnswerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let answer: Answer
    private let log: AccessLog?
    /// The start of a request whose rest has not arrived yet.
    private var pending: ByteBuffer?

    /// A handler answering `answer` to every request, logging each to `log` when given.
    init(answer: Answer, log: AccessLog?) {
        self.answer = answer
        self.log = log
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var input = unwrapInboundIn(data)
        if var held = pending.take() {
            held.writeBuffer(&input)
            input = held
        }
        var answered = false
        while let length = input.withUnsafeReadableBytes({ bytes -> Int? in
            guard let length = HTTPBytes.requestLength(bytes) else { return nil }
            if let log {
                let line = UnsafeRawBufferPointer(rebasing: bytes[..<HTTPBytes.lineEnd(bytes)])
                log.append(requestLine: line, status: 200, bytes: answer.body.readableBytes)
            }
            return length
        }) {
            input.moveReaderIndex(forwardBy: length)
            context.write(wrapOutboundOut(answer.raw), promise: nil)
            answered = true
        }
        if input.readableBytes > 0 { pending = input }
        if answered { context.flush() }
    }
}
