import NIOConcurrencyHelpers

/// The access-log lines one thread recorded and the writer has not taken yet. Only that thread appends and
/// only the writer takes, each holding the lock for an append or a swap: nothing is shared between event
/// loops.
final class AccessLogBuffer: Sendable {
    private let lines: NIOLockedValueBox<AccessLogLines>
    private let limit: Int

    /// A buffer that drops lines once it holds `limit` bytes.
    init(limit: Int) {
        self.limit = limit
        var lines = AccessLogLines()
        lines.bytes.reserveCapacity(min(limit, 64 * 1024))
        self.lines = NIOLockedValueBox(lines)
    }

    /// Appends one line written by `write`; the bytes held then, or nil when the buffer was full and the
    /// line was dropped (and counted here, so that a drop touches nothing another event loop uses either).
    func append(_ write: (inout AccessLogLines) -> Void) -> Int? {
        lines.withLockedValue { lines in
            guard lines.bytes.count < limit else {
                lines.dropped += 1
                return nil
            }
            write(&lines)
            return lines.bytes.count
        }
    }

    /// Swaps the lines held for `other` (the writer's empty buffer, whose capacity this one keeps); the lines
    /// dropped since the last exchange.
    func exchange(_ other: inout [UInt8]) -> Int {
        lines.withLockedValue { lines in
            swap(&lines.bytes, &other)
            defer { lines.dropped = 0 }
            return lines.dropped
        }
    }
}
