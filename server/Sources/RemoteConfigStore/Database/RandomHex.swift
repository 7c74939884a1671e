import RemoteConfigCore

/// Random ids and secrets written in hex, from the system's secure generator.
enum RandomHex {
    /// `count` random bytes in lowercase hex (`2 * count` characters).
    static func make(bytes count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }.hexEncoded
    }
}
