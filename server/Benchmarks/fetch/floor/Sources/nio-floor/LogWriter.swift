import Dispatch
import NIOCore

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Writes the event loops' full log buffers to the log file on a thread of its own, so no loop waits on the disk.
final class LogWriter: Sendable {
    private let descriptor: Int32
    private let queue = DispatchQueue(label: "nio-floor.access-log")

    /// Opens (creates, appends to) the file at `path`; nil when it cannot.
    init?(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if descriptor < 0 { return nil }
    }

    /// Writes `batch` in the background, in the order batches are handed over.
    func enqueue(_ batch: ByteBuffer) {
        queue.async { [descriptor] in
            batch.withUnsafeReadableBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written <= 0 { return }
                    offset += written
                }
            }
        }
    }
}
