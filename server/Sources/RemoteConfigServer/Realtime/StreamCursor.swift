/// Where a stream's client stands: the format it reads and the last version it was told about. Both ways a
/// stream is served keep one, so both write the same events.
struct StreamCursor: Sendable {
    let format: StreamFormat
    /// The last version the client was told about (0: none).
    private(set) var sent: Int64

    /// Whether `version`'s event goes out, the client not knowing it yet; it then knows it.
    mutating func takes(_ version: Int64) -> Bool {
        guard version > sent else { return false }
        sent = version
        return true
    }
}
