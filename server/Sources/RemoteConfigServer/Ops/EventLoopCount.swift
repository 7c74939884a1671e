import NIOCore

/// How many event loops serve connections (`--event-loops`): one per core unless the operator says otherwise.
///
/// On a machine whose cores also run other busy processes (a load generator, a database, a proxy), fewer
/// loops than cores can answer with less CPU time per request and a shorter tail (see the fetch benchmark).
public enum EventLoopCount {
    /// The largest count accepted: more loops than this only add threads that wait.
    public static let maximum = 256

    /// Sets the size of NIO's shared event loop group, which the server, its database clients and its
    /// outbound calls use. Must run before anything uses that group: it cannot change once started.
    public static func apply(_ count: Int) {
        NIOSingletons.groupLoopCountSuggestion = count
    }
}
