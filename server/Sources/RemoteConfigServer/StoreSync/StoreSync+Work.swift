/// Store sync's background work on this server (a `Worker`): every poll interval, and whenever a link was saved
/// here or a sync ended, it syncs the links that are due. The claim in the database makes each sync happen on
/// exactly one replica.
extension StoreSync: BackgroundWork {
    var name: String { "store sync" }

    /// Syncs run beside the worker (a few at once), so one store that hangs holds up no other; one cut short by
    /// a stop leaves its claim to run out, and another replica syncs the link.
    func round(beside: inout DiscardingTaskGroup) async throws -> Duration? {
        try await syncDue(in: &beside)
        return nil
    }
}
