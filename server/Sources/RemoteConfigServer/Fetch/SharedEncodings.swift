import NIOConcurrencyHelpers

/// The encodings of one template's remembered answers, by ETag (which names the bytes): a signature whose
/// callers receive the same entries as another's shares its encoding instead of compressing them again, and
/// the answers' budget counts those bytes once, however many signatures hold them.
///
/// An encoding is here while some remembered answer holds it (`hold`, `release`), so the budget alone decides
/// what stays in memory, and this table holds nothing the answers do not.
final class SharedEncodings: Sendable {
    private struct Shared {
        let encoding: FetchAnswers.Encoding
        var holders: Int
    }

    private let table = NIOLockedValueBox([String: Shared]())

    /// The encoding named `etag` that remembered answers hold, else `make()`'s.
    func encoding(_ etag: String, make: () -> FetchAnswers.Encoding) -> FetchAnswers.Encoding {
        // Made outside the lock, as compressing a big answer takes a while; two event loops making the same
        // bytes at the same moment both make them, and the first one remembered is the one shared.
        table.withLockedValue { $0[etag]?.encoding } ?? make()
    }

    /// Counts `encoding` as held by one more remembered answer; says whether its bytes are newly held (the
    /// first holder, or bytes made twice in a race, which are the holder's own).
    func hold(_ encoding: FetchAnswers.Encoding) -> Bool {
        table.withLockedValue { table in
            guard let shared = table[encoding.etag] else {
                table[encoding.etag] = Shared(encoding: encoding, holders: 1)
                return true
            }
            guard shared.encoding === encoding else { return true }
            table[encoding.etag]?.holders += 1
            return false
        }
    }

    /// Counts `encoding` as held by one answer fewer; says whether its bytes are no longer held (the last
    /// holder, or bytes that were the holder's own).
    func release(_ encoding: FetchAnswers.Encoding) -> Bool {
        table.withLockedValue { table in
            guard let shared = table[encoding.etag], shared.encoding === encoding else { return true }
            guard shared.holders > 1 else {
                table[encoding.etag] = nil
                return true
            }
            table[encoding.etag]?.holders -= 1
            return false
        }
    }

    /// How many encodings remembered answers hold now.
    var count: Int { table.withLockedValue { $0.count } }
}
