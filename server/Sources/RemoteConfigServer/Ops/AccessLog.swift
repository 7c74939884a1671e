import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
import RemoteConfigCore
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One line per answered request, for every way a request comes in (the fetch and stream fronts ahead of
/// NIO's codec, the router's middleware), in the format of the server's other log lines:
///
///     2026-11-26T16:33:33+0000 info remote-config: duration_ms=0.12 hb.request.id=5f0c… [RemoteConfigServer] POST /v1/projects/shop-app/remoteConfig:fetch 200
///
/// Written as nginx writes its buffered access log: a line is formatted straight into bytes (no
/// `Logger` call, metadata dictionary or `String(format:)`) and appended to a buffer of the thread that
/// answered, which no other event loop touches; a writer thread of its own sends the buffers to the
/// output in batches. A request never waits for the disk or a slow terminal: when the writer falls
/// behind and a thread's buffer is full, the line is dropped and counted (`rc_access_log_dropped_lines_total`,
/// and one warning). Run as a service, added before the HTTP server so that it stops after it: a graceful
/// stop writes every line of every request answered.
public final class AccessLog: Service, Sendable {
    /// Whether lines are recorded: the log level is `info` or more verbose (`RC_LOG_LEVEL`).
    public let enabled: Bool
    private let label: [UInt8]
    private let output: @Sendable (UnsafeRawBufferPointer) -> Void
    private let metrics: ServerMetrics?
    private let logger: Logger
    /// The bytes one thread may hold before its lines are dropped (about 8,000 lines).
    let bufferLimit: Int
    /// A thread holding this many bytes wakes the writer before its next round.
    private let wakeThreshold: Int
    private let interval: Duration
    /// The buffer of the thread that records (an event loop, or a thread of the concurrency pool); none when
    /// the log is off (each takes a thread-specific key, of which a process has about a thousand).
    private let local: ThreadSpecificVariable<AccessLogBuffer>?
    /// Every thread's buffer, for the writer; taken once per thread, when it records its first line.
    private let buffers = NIOLockedValueBox<[AccessLogBuffer]>([])
    private let wake = DispatchSemaphore(value: 0)
    private let state = NIOLockedValueBox(WriterState())
    /// The writer's buffer, which changes places with a thread's; its lock lets one batch be written at a time.
    private let spare = NIOLockedValueBox<[UInt8]>([])

    private struct WriterState {
        var running = false
        var stopping = false
        var warned = false
        var stopped: CheckedContinuation<Void, Never>?
    }

    /// A log named `label` (the logger's), on when `level` is `info` or more verbose, writing to `output`
    /// (standard output by default).
    public init(
        label: String, level: Logger.Level, metrics: ServerMetrics? = nil, bufferLimit: Int = 1 << 20,
        interval: Duration = .milliseconds(100),
        output: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil
    ) {
        let enabled = level <= .info
        self.enabled = enabled
        self.local = enabled ? ThreadSpecificVariable() : nil
        self.label = Array(label.utf8)
        self.metrics = metrics
        self.bufferLimit = bufferLimit
        self.wakeThreshold = min(64 * 1024, bufferLimit / 2)
        self.interval = interval
        self.output = output ?? Self.standardOutput
        var logger = Logger(label: label)
        logger.logLevel = level
        self.logger = logger
    }

    /// A log on when `logger`'s level is `info` or more verbose, writing to standard output.
    public convenience init(logger: Logger, metrics: ServerMetrics? = nil) {
        self.init(label: logger.label, level: logger.logLevel, metrics: metrics)
    }

    /// Writes whole lines to standard output, at most `PIPE_BUF` bytes per write: in a pipe such a write is
    /// never interleaved with another's, so a batch never splits the line another thread logs meanwhile.
    private static let standardOutput: @Sendable (UnsafeRawBufferPointer) -> Void = { bytes in
        var start = 0
        while start < bytes.count {
            var end = min(bytes.count, start + Int(PIPE_BUF))
            if end < bytes.count {
                // Back to the end of the last whole line (a line longer than PIPE_BUF goes in pieces).
                var cut = end
                while cut > start, bytes[cut - 1] != UInt8(ascii: "\n") { cut -= 1 }
                if cut > start { end = cut }
            }
            let written = write(STDOUT_FILENO, bytes.baseAddress! + start, end - start)
            if written > 0 {
                start += written
            } else if written < 0, errno == EINTR {
                continue
            } else {
                return  // standard output is closed or broken: nothing to be done about it here
            }
        }
    }

    /// Records the line of one answered request: `method`, the path (`prefix`, `name` and `suffix`
    /// together, so a route needs no string built per request; never a query, which may carry a key),
    /// `status`, how long the answer took and the request id.
    func record(
        method: StaticString, prefix: String, _ name: Substring = "", suffix: String = "",
        status: Int, duration: Duration, requestID: String
    ) {
        guard enabled else { return }
        let buffer = threadBuffer()
        let size = buffer.append { line in
            line.start(label: label, duration: duration, requestID: requestID)
            line.write(method)
            line.writeByte(UInt8(ascii: " "))
            line.writePath(prefix)
            line.writePath(name)
            line.writePath(suffix)
            line.end(status: status)
        }
        if let size, size >= wakeThreshold, size - AccessLogLines.typicalLength < wakeThreshold {
            wake.signal()
        }
    }

    /// `record` for a path given whole (the router's requests).
    public func record(method: String, path: some StringProtocol, status: Int, duration: Duration, requestID: String) {
        guard enabled else { return }
        let buffer = threadBuffer()
        let size = buffer.append { line in
            line.start(label: label, duration: duration, requestID: requestID)
            line.writePath(method)
            line.writeByte(UInt8(ascii: " "))
            line.writePath(path)
            line.end(status: status)
        }
        if let size, size >= wakeThreshold, size - AccessLogLines.typicalLength < wakeThreshold { wake.signal() }
    }

    private func threadBuffer() -> AccessLogBuffer {
        if let buffer = local?.currentValue { return buffer }
        let buffer = AccessLogBuffer(limit: bufferLimit)
        local?.currentValue = buffer
        buffers.withLockedValue { $0.append(buffer) }
        return buffer
    }

    /// Writes every line recorded so far, on the caller's thread: each thread's lines are swapped out for
    /// an empty buffer (its lock held for no longer than the swap) and written in one call.
    public func flush() {
        let dropped = spare.withLockedValue { spare in
            var dropped = 0
            for buffer in buffers.withLockedValue({ $0 }) {
                dropped += buffer.exchange(&spare)
                if !spare.isEmpty {
                    spare.withUnsafeBytes { output($0) }
                    spare.removeAll(keepingCapacity: true)
                }
            }
            return dropped
        }
        report(dropped: dropped)
    }

    private func report(dropped: Int) {
        guard dropped > 0 else { return }
        let warn = state.withLockedValue { state -> Bool in
            let warn = !state.warned
            state.warned = true
            return warn
        }
        metrics?.accessLogDropped(dropped)
        if warn {
            logger.warning(
                "the access log's output is slower than requests arrive: \(dropped) lines dropped so far (rc_access_log_dropped_lines_total counts them)"
            )
        }
    }

    /// Runs the writer thread until a graceful stop (or cancellation), then writes what is left.
    public func run() async throws {
        guard enabled else {
            try? await gracefulShutdown()
            return
        }
        let start = state.withLockedValue { state -> Bool in
            guard !state.running else { return false }
            state.running = true
            return true
        }
        guard start else { return }
        let thread = Thread { [self] in writerLoop() }
        thread.name = "access-log"
        thread.start()
        try? await gracefulShutdown()
        await withCheckedContinuation { continuation in
            state.withLockedValue { state in
                state.stopping = true
                state.stopped = continuation
            }
            wake.signal()
        }
    }

    private func writerLoop() {
        let wait = DispatchTimeInterval.nanoseconds(Int(interval.inNanoseconds))
        while true {
            _ = wake.wait(timeout: .now() + wait)
            let stopping = state.withLockedValue { $0.stopping }
            flush()
            if stopping { break }
        }
        let continuation = state.withLockedValue { state in
            state.running = false
            defer { state.stopped = nil }
            return state.stopped
        }
        continuation?.resume()
    }
}
