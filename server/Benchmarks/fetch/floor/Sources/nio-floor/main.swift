import NIOCore
import NIOHTTP1
import NIOPosix

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

// A bare SwiftNIO HTTP/1.1 server on loopback answering one fixed answer to every request, keep-alive, one
// write per answer: the least any SwiftNIO server costs per request on this machine.
/// Writes `text` and a newline to the descriptor `fd` unbuffered: the line "listening on" must reach the script
/// reading it at once, and a usage error before exiting.
func say(_ text: String, to fd: Int32 = 1) {
    let line = Array((text + "\n").utf8)
    _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

let options: FloorOptions
do {
    options = try FloorOptions(arguments: Array(CommandLine.arguments.dropFirst()))
} catch let error as UsageError {
    say("nio-floor: \(error.message)", to: 2)
    exit(2)
}
guard let answer = Answer(raw: options.answer) else {
    say("nio-floor: --answer holds no HTTP/1.1 answer (a status line, header lines, a blank line)", to: 2)
    exit(2)
}
let group = MultiThreadedEventLoopGroup(numberOfThreads: options.eventLoops)
var logs: [ObjectIdentifier: NIOLoopBound<AccessLog>] = [:]
if let path = options.logPath {
    guard let writer = LogWriter(path: path) else {
        say("nio-floor: cannot open \(path)", to: 2)
        exit(2)
    }
    for loop in group.makeIterator() {
        // Made on its loop: a loop-bound value may only be made, and used, there.
        logs[ObjectIdentifier(loop)] = try loop.submit { NIOLoopBound(AccessLog(writer: writer), eventLoop: loop) }
            .wait()
    }
}
let loopLogs = logs
let codec = options.codec
let server = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 1024)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            let log = loopLogs[ObjectIdentifier(channel.eventLoop)]?.value
            if codec {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withOutboundHeaderValidation: false)
                try channel.pipeline.syncOperations.addHandler(CodecAnswerHandler(answer: answer, log: log))
            } else {
                try channel.pipeline.syncOperations.addHandler(RawAnswerHandler(answer: answer, log: log))
            }
        }
    }
    .bind(host: "127.0.0.1", port: options.port).wait()
say("listening on http://127.0.0.1:\(server.localAddress?.port ?? 0)")
try server.closeFuture.wait()
