extension Duration {
    /// The duration in seconds with its fraction: what SQL's `make_interval(secs => …)` and rates take.
    @inlinable public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds, rounded toward zero: what NIO's `TimeAmount` and Dispatch take.
    @inlinable public var inNanoseconds: Int64 {
        components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000
    }
}
