/// The answer of `POST …/insights:import`: what the call kept. Shared by the server, which writes it, and the
/// command line.
public struct InsightsImportResult: Sendable, Codable, Equatable {
    public var importedRows: Int
    /// The oldest and newest day imported (`YYYY-MM-DD`); null for an import of no rows.
    public var firstDate: String?
    public var lastDate: String?
    public var platforms: [String]

    /// Creates the result.
    public init(importedRows: Int, firstDate: String?, lastDate: String?, platforms: [String]) {
        self.importedRows = importedRows
        self.firstDate = firstDate
        self.lastDate = lastDate
        self.platforms = platforms
    }
}
