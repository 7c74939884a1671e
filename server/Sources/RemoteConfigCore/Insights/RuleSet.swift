/// Rules of a template by position in its serving tables' `rules`, as bits: which rules decided a parameter
/// of one answer (`AnswerTally`). The first 128 are inline, so that counting an answer of a common template
/// reads no object but its tally: a list of its own was a cache miss on nearly every answer of a busy server.
struct RuleSet: Sendable {
    private var first: UInt64 = 0
    private var second: UInt64 = 0
    /// Rules from 128 on, 64 a word.
    private var rest: [UInt64]

    /// An empty set of a template with `count` rules.
    init(count: Int) {
        rest = count > 128 ? [UInt64](repeating: 0, count: (count - 128 + 63) / 64) : []
    }

    mutating func insert(_ rule: Int) {
        switch rule {
        case ..<64: first |= 1 << UInt64(rule)
        case ..<128: second |= 1 << UInt64(rule - 64)
        default: rest[(rule - 128) / 64] |= 1 << UInt64((rule - 128) % 64)
        }
    }

    /// About how many bytes the set holds beyond its inline words.
    var extraBytes: Int { 8 * rest.count }

    /// The word of rules `start` to `start` + 63; nil past the last.
    fileprivate func word(from start: Int) -> UInt64? {
        switch start {
        case 0: return first
        case 64: return second
        default: return (start - 128) / 64 < rest.count ? rest[(start - 128) / 64] : nil
        }
    }
}

extension RuleSet: Sequence {
    /// The rules in order, a word's set bits at a time.
    struct Iterator: IteratorProtocol {
        fileprivate let set: RuleSet
        fileprivate var word: UInt64
        fileprivate var start = 0

        mutating func next() -> Int? {
            while word == 0 {
                start += 64
                guard let next = set.word(from: start) else { return nil }
                word = next
            }
            let rule = start + word.trailingZeroBitCount
            word &= word - 1
            return rule
        }
    }

    func makeIterator() -> Iterator { Iterator(set: self, word: first) }
}
