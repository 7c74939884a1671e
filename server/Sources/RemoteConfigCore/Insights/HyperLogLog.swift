import Foundation

/// A HyperLogLog sketch of distinct app instances: 2^12 registers of 6 bits, about 1.6% standard error
/// (1.04 / √4096), merged by the register-wise maximum, so sketches from several servers or hours count an
/// instance seen in both once.
///
/// Small sketches keep only their non-zero registers (most versions of an app are seen by few instances);
/// past `sparseLimitInMemory` of them, every register (and stored, past `sparseLimit`). The estimate is Ertl's improved estimator ("New cardinality
/// estimation algorithms for HyperLogLog sketches", 2017), which needs neither the small-range switch to
/// linear counting nor HyperLogLog++'s empirical bias tables to stay within the standard error at every
/// cardinality.
public struct HyperLogLog: Sendable, Equatable {
    /// Index bits: 2^12 registers.
    public static let precision = 12
    /// The number of registers.
    public static let registerCount = 1 << precision
    /// Above this many non-zero registers the stored form keeps them all: the sparse form would then be the
    /// larger.
    static let sparseLimit = 1024
    /// Above this many non-zero registers the sketch in memory keeps them all: a dictionary of 256 registers
    /// takes about as much memory as the 4,096 bytes of every register, and each added hash costs a hashed
    /// lookup where the array costs an index.
    static let sparseLimitInMemory = 256
    /// Serialized forms, the first byte of `serialized()`.
    static let sparseTag: UInt8 = 1
    static let denseTag: UInt8 = 2

    /// Every register, one byte each, once past `sparseLimitInMemory` non-zero ones; empty while sparse. A
    /// stored property of its own (not an enum's payload), so that adding a hash reads and changes it in place:
    /// taking it out of an enum cost a retain and a release per hash, and putting it back a uniqueness check.
    private var dense: [UInt8] = []
    /// Register index → rank, only non-zero registers, while `dense` is empty.
    private var sparse: [UInt16: UInt8] = [:]

    /// An empty sketch.
    public init() {}

    /// Whether nothing was added.
    public var isEmpty: Bool { dense.isEmpty && sparse.isEmpty }

    /// Adds an instance by its 64-bit hash (`InstanceHash`).
    public mutating func add(hash: UInt64) {
        let register = Self.register(of: hash)
        set(Int(register >> 6), UInt8(register & 0x3F))
    }

    /// What adding a hash sets, packed in 18 bits: the register's index (the top 12 bits of the hash) above
    /// 6 bits of rank (one more than the leading zeros of the remaining 52). Counting keeps this rather than
    /// the hash while an instance waits to be added (`VersionSlots`).
    public static func register(of hash: UInt64) -> UInt32 {
        let index = UInt32(truncatingIfNeeded: hash >> UInt64(64 - precision))
        let rest = hash << UInt64(precision)
        let rank = UInt32(min(rest.leadingZeroBitCount, 64 - precision) + 1)
        return index << 6 | rank
    }

    /// Adds instances by what their hashes set (`register(of:)`): a batch reads the registers' storage once,
    /// and a dense sketch's registers in one loop whose memory reads do not wait on each other.
    public mutating func add(registers: UnsafeBufferPointer<UInt32>) {
        if dense.isEmpty {
            for register in registers { set(Int(register >> 6), UInt8(register & 0x3F)) }
            return
        }
        dense.withUnsafeMutableBufferPointer { dense in
            for register in registers {
                let index = Int(register >> 6)
                let rank = UInt8(register & 0x3F)
                if dense[index] < rank { dense[index] = rank }
            }
        }
    }

    private mutating func set(_ index: Int, _ rank: UInt8) {
        if !dense.isEmpty {
            if dense[index] < rank { dense[index] = rank }
            return
        }
        if let old = sparse[UInt16(index)], old >= rank { return }
        sparse[UInt16(index)] = rank
        if sparse.count > Self.sparseLimitInMemory {
            var registers = [UInt8](repeating: 0, count: Self.registerCount)
            for (position, value) in sparse { registers[Int(position)] = value }
            dense = registers
            sparse = [:]
        }
    }

    /// Adds every instance of `other` (the union of both).
    public mutating func merge(_ other: HyperLogLog) {
        if other.dense.isEmpty {
            for (index, rank) in other.sparse { set(Int(index), rank) }
            return
        }
        if dense.isEmpty {
            dense = denseRegisters
            sparse = [:]
        }
        // Register-wise maximum over plain buffers, which the compiler turns into vector instructions: a flush
        // merges every version's sketch of every event loop.
        dense.withUnsafeMutableBufferPointer { mine in
            other.dense.withUnsafeBufferPointer { theirs in
                for index in 0..<Self.registerCount { mine[index] = max(mine[index], theirs[index]) }
            }
        }
    }

    /// Every register, zeros included.
    private var denseRegisters: [UInt8] {
        if !dense.isEmpty { return dense }
        var registers = [UInt8](repeating: 0, count: Self.registerCount)
        for (index, rank) in sparse { registers[Int(index)] = rank }
        return registers
    }

    /// The estimated number of distinct instances added.
    public var estimate: Double {
        let q = 64 - Self.precision
        var histogram = [Double](repeating: 0, count: q + 2)
        if dense.isEmpty {
            histogram[0] = Double(Self.registerCount - sparse.count)
            for rank in sparse.values { histogram[Int(rank)] += 1 }
        } else {
            for rank in dense { histogram[Int(rank)] += 1 }
        }
        let m = Double(Self.registerCount)
        var z = m * Self.tau(1 - histogram[q + 1] / m)
        for k in stride(from: q, through: 1, by: -1) { z = 0.5 * (z + histogram[k]) }
        z += m * Self.sigma(histogram[0] / m)
        return (m * m / (2 * log(2.0))) / z
    }

    /// The estimate rounded to a whole number of instances.
    public var count: Int { Int(estimate.rounded()) }

    private static func sigma(_ value: Double) -> Double {
        if value == 1 { return .infinity }
        var x = value
        var y = 1.0
        var z = x
        while true {
            x *= x
            let previous = z
            z += x * y
            y += y
            if z == previous { return z }
        }
    }

    private static func tau(_ value: Double) -> Double {
        if value == 0 || value == 1 { return 0 }
        var x = value
        var y = 1.0
        var z = 1 - x
        while true {
            x = x.squareRoot()
            let previous = z
            y *= 0.5
            z -= (1 - x) * (1 - x) * y
            if z == previous { return z / 3 }
        }
    }

    /// The stored form: `1`, then 3 bytes per non-zero register (12 bits of index, 6 of rank) in index order
    /// while that is shorter; else `2`, then every register's 6 bits packed (3,072 bytes).
    public func serialized() -> [UInt8] {
        let registers: [(index: Int, rank: UInt8)]
        if dense.isEmpty {
            registers = sparse.map { (Int($0.key), $0.value) }.sorted { $0.index < $1.index }
        } else {
            let nonZero = dense.withUnsafeBufferPointer { dense in dense.reduce(0) { $0 + ($1 != 0 ? 1 : 0) } }
            guard nonZero <= Self.sparseLimit else { return Self.pack(dense) }
            registers = dense.enumerated().filter { $0.element != 0 }.map { ($0.offset, $0.element) }
        }
        var bytes: [UInt8] = [Self.sparseTag]
        bytes.reserveCapacity(1 + 3 * registers.count)
        for (index, rank) in registers {
            let word = UInt32(index) << 6 | UInt32(rank & 0x3F)
            bytes.append(UInt8(truncatingIfNeeded: word >> 16))
            bytes.append(UInt8(truncatingIfNeeded: word >> 8))
            bytes.append(UInt8(truncatingIfNeeded: word))
        }
        return bytes
    }

    private static func pack(_ registers: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [denseTag]
        bytes.reserveCapacity(1 + registerCount * 6 / 8)
        var index = 0
        while index < registerCount {
            // Four 6-bit registers in three bytes.
            let word =
                UInt32(registers[index] & 0x3F) << 18 | UInt32(registers[index + 1] & 0x3F) << 12
                | UInt32(registers[index + 2] & 0x3F) << 6 | UInt32(registers[index + 3] & 0x3F)
            bytes.append(UInt8(truncatingIfNeeded: word >> 16))
            bytes.append(UInt8(truncatingIfNeeded: word >> 8))
            bytes.append(UInt8(truncatingIfNeeded: word))
            index += 4
        }
        return bytes
    }

    /// Reads `serialized()`'s form; nil for bytes that are not one.
    public init?(serialized bytes: some Collection<UInt8>) {
        let bytes = Array(bytes)
        guard let tag = bytes.first else { return nil }
        switch tag {
        case Self.sparseTag:
            guard (bytes.count - 1) % 3 == 0 else { return nil }
            var offset = 1
            while offset < bytes.count {
                let word = UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
                let index = Int(word >> 6)
                let rank = UInt8(word & 0x3F)
                guard index < Self.registerCount, rank > 0, rank <= 64 - Self.precision + 1 else { return nil }
                set(index, rank)
                offset += 3
            }
        case Self.denseTag:
            guard bytes.count == 1 + Self.registerCount * 6 / 8 else { return nil }
            var registers = [UInt8](repeating: 0, count: Self.registerCount)
            var offset = 1
            var index = 0
            while index < Self.registerCount {
                let word = UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
                registers[index] = UInt8((word >> 18) & 0x3F)
                registers[index + 1] = UInt8((word >> 12) & 0x3F)
                registers[index + 2] = UInt8((word >> 6) & 0x3F)
                registers[index + 3] = UInt8(word & 0x3F)
                offset += 3
                index += 4
            }
            guard registers.allSatisfy({ $0 <= 64 - Self.precision + 1 }) else { return nil }
            dense = registers
        default:
            return nil
        }
    }
}
