import RemoteConfigCore
import RemoteConfigStore

/// What follows every publish on this server, whoever asked for it (a person, a draft, a store sync): the new
/// version is counted and installed in this server's cache at once, without waiting for the notification that
/// tells the other servers.
struct Publishing: Sendable {
    let published: PublishedTemplates
    let metrics: ServerMetrics

    /// Counts and installs `stored`, a version just published; `prepared` is what the publish validated and
    /// compiled (nil: compile the stored JSON). Its compiled form is used only when the store kept exactly its
    /// JSON: a publish may store less than was sent (a halted rollout's condition dropped), and apps get what was
    /// stored.
    func announce(_ stored: StoredVersion, prepared: PreparedTemplate? = nil) async {
        metrics.publish(updateType: stored.updateType.rawValue)
        if let prepared, prepared.storedJSON == stored.templateJSON {
            published.install(project: stored.project, version: stored.versionNumber, compiled: prepared.compiled)
        } else {
            await published.install(stored)
        }
    }
}
