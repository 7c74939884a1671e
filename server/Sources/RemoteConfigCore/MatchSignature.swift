/// Which of a template's used conditions select a caller, as bits; a key for remembering answers.
public struct MatchSignature: Sendable, Hashable {
    // The first 64 conditions inline, so the common template costs no allocation per request.
    private var first: UInt64 = 0
    private var rest: [UInt64]

    init(count: Int) {
        rest = count > 64 ? [UInt64](repeating: 0, count: (count - 1) / 64) : []
    }

    mutating func set(_ bit: Int) {
        if bit < 64 {
            first |= 1 << UInt64(bit)
        } else {
            rest[(bit - 64) / 64] |= 1 << UInt64((bit - 64) % 64)
        }
    }

    /// The first 64 conditions' bits; all of them when `isInline`.
    var inlineBits: UInt64 { first }
    /// Whether every bit is in `inlineBits` (at most 64 conditions).
    var isInline: Bool { rest.isEmpty }

    func contains(_ bit: Int) -> Bool {
        bit < 64 ? first & (1 << UInt64(bit)) != 0 : rest[(bit - 64) / 64] & (1 << UInt64((bit - 64) % 64)) != 0
    }
}
