/// How many app instances: those the server counted itself, as a sketch (so that an instance seen on several days
/// or versions counts once), plus those an import reported, as a plain number (already distinct per day and
/// version, so reported counts add up).
public struct InstanceTally: Sendable, Equatable {
    /// The instances counted by fetches.
    public private(set) var sketch: HyperLogLog
    /// The instances imported days reported, already spread over the window they stand for.
    public private(set) var reported: Double

    /// Counted instances only (none for an empty sketch).
    public init(sketch: HyperLogLog = HyperLogLog()) {
        self.sketch = sketch
        reported = 0
    }

    /// Reported instances only.
    public init(reported: Double) {
        sketch = HyperLogLog()
        self.reported = reported
    }

    /// The union of counted instances, and the sum of reported ones.
    public mutating func merge(_ other: InstanceTally) {
        sketch.merge(other.sketch)
        reported += other.reported
    }

    /// The instances, to the nearest whole one.
    public var count: Int { sketch.count + Int(reported.rounded()) }
}
