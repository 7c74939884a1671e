import RemoteConfigCore
import RemoteConfigStore

/// What follows every publish on this server, whoever asked for it (a person, a draft, a store sync): the new
/// version is counted and installed in this server's cache at once, without waiting for the notification that
/// tells the other servers.
struct Publishing: Sendable {
    let published: PublishedTemplates
    let metrics: ServerMetrics

    /// Runs a publish, then counts and installs it; `compiled` is what the publish compiled while validating
    /// (nil: compile the stored JSON).
    func run(_ compiled: CompiledTemplate? = nil, _ body: () async throws -> StoredVersion) async throws
        -> StoredVersion
    {
        let stored = try await body()
        metrics.publish(updateType: stored.updateType)
        if let compiled {
            published.install(project: stored.project, version: stored.versionNumber, compiled: compiled)
        } else {
            await published.install(stored)
        }
        return stored
    }
}
