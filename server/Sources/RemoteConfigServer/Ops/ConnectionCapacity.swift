#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many connections this process can hold: each one is an open file, so the open-files limit decides.
public enum ConnectionCapacity {
    /// Descriptors kept for everything but client connections: the database pool and listener, the log,
    /// the embedded PostgreSQL's pipes, the listening socket.
    static let reserved = 64

    /// Raises the open-files soft limit to the hard limit (never the hard limit itself, which only a
    /// privileged process may raise) and returns the soft limit now in force.
    @discardableResult
    public static func raiseOpenFilesLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(resourceOpenFiles, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resourceOpenFiles, &raised) == 0 { limit = raised }
        }
        return Int(clamping: min(limit.rlim_cur, rlim_t(Int32.max)))  // RLIM_INFINITY is the largest value
    }

    /// The open-files soft limit in force.
    public static var openFilesLimit: Int {
        var limit = rlimit()
        guard getrlimit(resourceOpenFiles, &limit) == 0 else { return 1024 }
        return Int(clamping: min(limit.rlim_cur, rlim_t(Int32.max)))  // RLIM_INFINITY is the largest value
    }

    /// Client connections the process can hold with `openFiles` descriptors.
    public static func connections(openFiles: Int) -> Int {
        max(1, openFiles - reserved)
    }

    /// The default cap on streams: 90% of the connections the process can hold, so fetches and admin calls
    /// always find room.
    public static func defaultMaxStreams(openFiles: Int) -> Int {
        max(1, connections(openFiles: openFiles) * 9 / 10)
    }

    #if canImport(Glibc)
        private static let resourceOpenFiles = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resourceOpenFiles = RLIMIT_NOFILE
    #endif
}
