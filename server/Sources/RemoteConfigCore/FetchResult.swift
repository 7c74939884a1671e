/// What a fetch returns: state, entries in order, and the template version.
public struct FetchResult: Sendable, Hashable {
    /// The response state.
    public var state: FetchState
    /// The served entries in parameter order (top-level parameters, then each group's).
    public var entries: [ResolvedEntry]
    /// The template version the answer came from.
    public var templateVersion: String?

    /// Creates a result.
    public init(state: FetchState, entries: [ResolvedEntry], templateVersion: String?) {
        self.state = state
        self.entries = entries
        self.templateVersion = templateVersion
    }

    /// The answer before anything is published.
    public static let noTemplate = FetchResult(state: .noTemplate, entries: [], templateVersion: nil)

    /// The entries as a dictionary (order lost), convenient in tests.
    public var values: [String: String] {
        Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
