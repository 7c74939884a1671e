/// The published version of another project that a version, change request or draft was promoted from.
public struct PromotedFrom: Sendable, Hashable, Codable {
    public let project: String
    public let versionNumber: Int64

    public init(project: String, versionNumber: Int64) {
        self.project = project
        self.versionNumber = versionNumber
    }

    /// From two stored columns, when both are set.
    init?(project: String?, versionNumber: Int64?) {
        guard let project, let versionNumber else { return nil }
        self.init(project: project, versionNumber: versionNumber)
    }
}
