import NIOConcurrencyHelpers

/// The encodings of one template's remembered answers, by ETag (which names the bytes): a signature whose
/// callers receive the same entries as another's shares its encoding instead of compressing them again.
///
/// Held weakly: an encoding lives as long as some remembered answer holds it, so the answers' budget alone
/// decides what stays in memory, and this table adds one small entry per live encoding.
final class SharedEncodings: Sendable {
    private struct Held {
        weak var encoding: FetchAnswers.Encoding?
    }

    private struct Table {
        var byETag: [String: Held] = [:]
        /// At this many entries, those whose encoding has gone are swept out (then twice the live ones): the
        /// table stays within a constant factor of what is alive, at a constant cost per insertion.
        var sweepAt = 64
    }

    private let table = NIOLockedValueBox(Table())

    /// The encoding named `etag`: one that a remembered answer holds, else `make()`'s, remembered from then on.
    func encoding(_ etag: String, make: () -> FetchAnswers.Encoding) -> FetchAnswers.Encoding {
        if let held = table.withLockedValue({ $0.byETag[etag]?.encoding }) { return held }
        // Made outside the lock, as compressing a big answer takes a while; two event loops making the same
        // bytes at the same moment both make them, and the first one made is kept.
        let made = make()
        return table.withLockedValue { table in
            if let held = table.byETag[etag]?.encoding { return held }
            table.byETag[etag] = Held(encoding: made)
            if table.byETag.count >= table.sweepAt {
                table.byETag = table.byETag.filter { $0.value.encoding != nil }
                table.sweepAt = max(64, 2 * table.byETag.count)
            }
            return made
        }
    }

    /// How many encodings are alive now (for tests).
    var live: Int { table.withLockedValue { $0.byETag.values.count { $0.encoding != nil } } }
}
