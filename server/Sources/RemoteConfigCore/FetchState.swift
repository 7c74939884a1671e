/// The `state` of a fetch response.
public enum FetchState: String, Sendable, Hashable {
    /// Entries follow.
    case update = "UPDATE"
    /// Nothing has been published yet.
    case noTemplate = "NO_TEMPLATE"
    /// Published, but nothing applies to this caller.
    case emptyConfig = "EMPTY_CONFIG"
}
