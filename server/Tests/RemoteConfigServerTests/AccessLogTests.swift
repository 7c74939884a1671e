import Foundation
import NIOConcurrencyHelpers
import RemoteConfigServer
import Testing

/// The access log's lines: the format of the server's other log lines, two decimals of milliseconds,
/// escaped paths, off above `info`, bounded when its output falls behind, and complete after a stop.
@Suite struct AccessLogTests {
    /// What a log wrote, as text.
    final class Captured: Sendable {
        private let bytes = NIOLockedValueBox<[UInt8]>([])
        var output: @Sendable (UnsafeRawBufferPointer) -> Void {
            { chunk in self.bytes.withLockedValue { $0 += chunk } }
        }
        var text: String { String(decoding: bytes.withLockedValue { $0 }, as: UTF8.self) }
        var lines: [Substring] { text.split(separator: "\n") }
    }

    @Test func aLineHasTheFieldsOfEveryLogLineAndTwoDecimalsOfMilliseconds() throws {
        let captured = Captured()
        let log = AccessLog(label: "remote-config", level: .info, output: captured.output)
        log.record(
            method: "GET", path: "/v1/projects", status: 200, duration: .microseconds(1254), requestID: "abc-1")
        log.record(method: "PUT", path: "/v1/x", status: 404, duration: .milliseconds(2503.996), requestID: "r2")
        log.record(method: "GET", path: "/healthz", status: 200, duration: .nanoseconds(4_000), requestID: "r3")
        log.flush()
        let lines = captured.lines
        try #require(lines.count == 3)
        let pattern =
            /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4} info remote-config: duration_ms=1\.25 hb\.request\.id=abc-1 \[RemoteConfigServer\] GET \/v1\/projects 200$/
        #expect(lines[0].wholeMatch(of: pattern) != nil, "\(lines[0])")
        #expect(lines[1].hasSuffix("duration_ms=2504.00 hb.request.id=r2 [RemoteConfigServer] PUT /v1/x 404"))
        #expect(lines[2].contains(" duration_ms=0.00 "))
    }

    @Test func aControlCharacterInAPathCannotStartALineOfItsOwn() {
        let captured = Captured()
        let log = AccessLog(label: "remote-config", level: .info, output: captured.output)
        log.record(
            method: "GET", path: "/a\r\n2026-01-01T00:00:00+0000 critical forged", status: 404, duration: .zero,
            requestID: "r")
        log.flush()
        #expect(captured.lines.count == 1)
        #expect(captured.text.contains(#"GET /a\r\n2026-01-01T00:00:00+0000 critical forged 404"#))
    }

    @Test func theLogIsOffAboveInfo() {
        let captured = Captured()
        let log = AccessLog(label: "remote-config", level: .warning, output: captured.output)
        #expect(!log.enabled)
        log.record(method: "GET", path: "/healthz", status: 200, duration: .zero, requestID: "r")
        log.flush()
        #expect(captured.text.isEmpty)
    }

    @Test func aFullBufferDropsAndCountsLinesRatherThanWaiting() {
        let captured = Captured()
        let metrics = ServerMetrics()
        let log = AccessLog(
            label: "remote-config", level: .info, metrics: metrics, bufferLimit: 1_000, output: captured.output)
        for index in 0..<100 {
            log.record(method: "GET", path: "/healthz", status: 200, duration: .zero, requestID: "r\(index)")
        }
        log.flush()
        let written = captured.lines.count
        #expect(written > 0 && written < 100)
        let exposition = String(decoding: metrics.registry.emitToBuffer(), as: UTF8.self)
        #expect(exposition.contains("rc_access_log_dropped_lines_total \(100 - written)"))
        // Once written, the buffer takes lines again.
        log.record(method: "GET", path: "/healthz", status: 200, duration: .zero, requestID: "again")
        log.flush()
        #expect(captured.text.contains("hb.request.id=again "))
    }

    @Test func linesFromManyThreadsAreAllWrittenWhenTheWriterStops() async throws {
        let captured = Captured()
        let log = AccessLog(label: "remote-config", level: .info, interval: .seconds(60), output: captured.output)
        let writer = Task { try await log.run() }
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for index in 0..<500 {
                        log.record(
                            method: "POST", path: "/p", status: 200, duration: .zero, requestID: "t\(task)-\(index)")
                    }
                }
            }
        }
        // The writer's round is a minute away: only the stop writes these lines.
        writer.cancel()
        try await writer.value
        let ids = Set(captured.lines.compactMap { $0.firstMatch(of: /hb\.request\.id=(\S+)/)?.1 })
        #expect(captured.lines.count == 4_000)
        #expect(ids.count == 4_000)
    }

    @Test func anOutputThatDoesNotTakeItsLinesNeverHoldsARequest() async throws {
        // The output blocks, as a terminal or pipe nobody reads does, until the test lets it go.
        let gate = DispatchSemaphore(value: 0)
        let captured = Captured()
        let metrics = ServerMetrics()
        let log = AccessLog(
            label: "remote-config", level: .info, metrics: metrics, bufferLimit: 4_096, interval: .milliseconds(10)
        ) { bytes in
            gate.wait()
            captured.output(bytes)
        }
        let writer = Task { try await log.run() }
        let start = ContinuousClock.now
        for index in 0..<20_000 {
            log.record(method: "GET", path: "/healthz", status: 200, duration: .zero, requestID: "r\(index)")
            if index == 100 { try await Task.sleep(for: .milliseconds(50)) }  // the writer is now stuck in a write
        }
        let recording = ContinuousClock.now - start
        #expect(recording < .seconds(2), "recording waited for the output: \(recording)")
        for _ in 0..<100 { gate.signal() }
        writer.cancel()
        try await writer.value
        for _ in 0..<100 { gate.signal() }
        let exposition = String(decoding: metrics.registry.emitToBuffer(), as: UTF8.self)
        let dropped = exposition.firstMatch(of: /rc_access_log_dropped_lines_total (\d+)/).flatMap { Int($0.1) } ?? 0
        #expect(dropped > 0)
        #expect(captured.lines.count + dropped == 20_000)
    }
}
