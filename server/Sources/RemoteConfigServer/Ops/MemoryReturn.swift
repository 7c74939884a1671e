import Logging
import ServiceLifecycle

#if canImport(Glibc)
    import CMalloc
#endif

/// Gives the system back, every `interval`, the memory the allocator holds free inside its heaps.
///
/// glibc returns freed memory to the system only from the top of a heap, and keeps a heap per thread: what the
/// budgets let go (answers forgotten, samples flushed) stayed in the process, spread over pages that also hold
/// live objects, so a server's resident memory never came down from its busiest minute. `malloc_trim(0)`
/// releases every free page of every heap. It takes each heap's lock while it walks that heap's free chunks,
/// so it runs off the event loops, seldom, and its time is logged when it is long. Elsewhere it does nothing.
struct MemoryReturn: Service {
    /// How often; memory let go is back with the system within about this long.
    var interval: Duration = .seconds(10)
    let logger: Logger

    func run() async throws {
        while true {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            if Task.isShuttingDownGracefully || Task.isCancelled { return }
            let took = ContinuousClock().measure { Self.returnFreeMemory() }
            if took > Duration.milliseconds(20) { logger.debug("memory: returning free pages took \(took)") }
        }
    }

    /// Releases the allocator's free pages to the system (glibc; nothing elsewhere).
    static func returnFreeMemory() {
        #if canImport(Glibc)
            _ = malloc_trim(0)
        #endif
    }
}

/// How the process's allocator is set up, once, at start-up.
public enum Allocator {
    /// Heaps glibc may keep: two, where it keeps up to eight per core by default. Each thread that meets a busy
    /// heap takes another, so event loops, the concurrency pool, the impact thread and the database's threads
    /// spread the same kinds of objects over many heaps, each with its own free holes that neither another thread
    /// nor `malloc_trim` can reuse; small allocations mostly come from each thread's cache and take no heap lock.
    public static let heaps: Int32 = 2

    /// Free memory at a heap's top that `free` keeps for the next allocations rather than handing back at once;
    /// `MemoryReturn` hands back all of it every 10 seconds. glibc's default (128 KiB, rising with the largest
    /// block freed) gave the top back and took it again on nearly every answer made: the `brk` calls, the page
    /// faults that refill the pages and the TLB flushes they cost every core were a fifth of the server's time
    /// with new devices spread over 1,000 projects.
    public static let keptFree: Int32 = 16 << 20

    /// Blocks this long and longer are mapped on their own, and unmapped when freed: only what no answer is,
    /// as a 70 KB answer at Firebase's limits (a 128 KiB buffer) was mapped and unmapped per new device, each
    /// unmapping a TLB flush on every core.
    public static let mappedFrom: Int32 = 32 << 20

    /// Sets up glibc's allocator (`heaps`, `keptFree`, `mappedFrom`) before the server's threads start; nothing
    /// elsewhere.
    public static func configureAllocator() {
        #if canImport(Glibc)
            _ = mallopt(M_ARENA_MAX, heaps)
            _ = mallopt(M_TRIM_THRESHOLD, keptFree)
            _ = mallopt(M_MMAP_THRESHOLD, mappedFrom)
        #endif
    }
}
