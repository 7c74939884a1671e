import HTTPTypes

/// The header names this server reads or writes beyond HTTPTypes' own, spelt once: the router reads them
/// by these names, the fronts' byte parsers compare with their `canonicalName` (lowercase) and the fronts
/// write their `rawName`.
extension HTTPField.Name {
    /// The client key of a fetch or a stream.
    static let apiKey = Self("X-API-Key")!
    /// The last event an SSE client saw, sent when it reconnects.
    static let lastEventID = Self("Last-Event-ID")!
    /// A request's id: a proxy's when it sends one, else made here; always answered.
    static let requestID = Self("X-Request-Id")!
    /// Asks nginx (and proxies like it) not to buffer a stream's events.
    static let accelBuffering = Self("X-Accel-Buffering")!
}
