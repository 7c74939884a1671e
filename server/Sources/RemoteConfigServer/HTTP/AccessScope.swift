import RemoteConfigStore

/// Which projects an admin route touches, for the key-scope check.
enum AccessScope {
    /// One project's resources.
    case project(String)
    /// Resources of no single project (creating a project): only a key for all projects may.
    case global
    /// A listing that the handler filters to the key's project.
    case any
}
