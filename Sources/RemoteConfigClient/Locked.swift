import Foundation

/// A value guarded by a lock, shared between tasks and threads.
///
/// `Synchronization.Mutex` needs macOS 15 / iOS 18 and the package supports older systems, so this wraps `NSLock`.
// @unchecked Sendable is safe: `value` is only read or written inside `withLock`, which holds `lock`,
// and `Value` is required to be Sendable, so nothing non-Sendable escapes the critical section.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
