import Synchronization

/// Bytes that memory of one kind may hold at once, shared by every holder of that kind in the process: the
/// remembered answers of every template (`AnswersBySignature`), or the sampled contexts every thread holds
/// between insights flushes (`InsightsRecorder`). What makes the server's memory a sum of budgets rather than
/// a product of projects, threads and devices (docs/api.md, "Memory").
final class ByteBudget: Sendable {
    /// The remembered answers' budget: 64 MiB, about 25,000 fetch answers of the realistic template (50
    /// parameters), across every project.
    static let answers = ByteBudget(limit: 64 << 20)

    /// Bytes that may be held at once.
    let limit: Int
    private let used = Atomic<Int>(0)

    /// A budget of `limit` bytes.
    init(limit: Int) {
        self.limit = limit
    }

    /// Bytes held now.
    var bytes: Int { used.load(ordering: .relaxed) }

    /// Takes `bytes` when they fit; false (and nothing taken) when they do not.
    func reserve(_ bytes: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while current + bytes <= limit {
            let (exchanged, original) = used.compareExchange(
                expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives back `bytes` taken with `reserve`.
    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        used.subtract(bytes, ordering: .relaxed)
    }
}
