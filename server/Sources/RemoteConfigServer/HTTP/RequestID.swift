import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Request ids for `X-Request-Id` and the log: random, so they reveal nothing about request volume, and
/// cheap enough for the fetch path. A well-formed id sent by a proxy in front of us is kept, so one id
/// follows a request through both logs.
enum RequestID {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// The incoming id when it is well formed (1 to 128 of `A-Z a-z 0-9 . _ -`), else a new random one.
    static func make(incoming: String? = nil) -> String {
        if let incoming, isWellFormed(incoming) { return incoming }
        var value = RandomPool.shared.withLockedValue { $0.next() }
        return String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 {
                buffer[index] = digits[Int(value & 0x0F)]
                value >>= 4
            }
            return 16
        }
    }

    static func isWellFormed(_ id: String) -> Bool {
        let utf8 = id.utf8
        return !utf8.isEmpty && utf8.count <= 128
            && utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
            }
    }
}

/// Random 64-bit values drawn from the system's generator 64 at a time: one system call per request id
/// showed in the fetch profile; one per 64 does not.
private struct RandomPool {
    static let shared = NIOLockedValueBox(RandomPool())

    private var values = [UInt64](repeating: 0, count: 64)
    private var used = 64

    mutating func next() -> UInt64 {
        if used == values.count {
            values.withUnsafeMutableBytes { arc4random_buf($0.baseAddress!, $0.count) }
            used = 0
        }
        defer { used += 1 }
        return values[used]
    }
}
