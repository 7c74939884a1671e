/// Why a project's `promotesTo` was refused.
public enum ProjectLinkError: Error, Equatable {
    /// The project it names does not exist.
    case notFound(String)
    /// Following the links from the project it names comes back: the chain, ending where it started.
    case cycle([String])
}
