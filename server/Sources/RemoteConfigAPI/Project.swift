import Foundation

/// A project as `/v1/projects` answers it: its id, name, creation time, publish workflow settings, and its
/// place among the app's environments.
public struct Project: Codable, Sendable, Equatable {
    public var projectId: String
    public var displayName: String
    public var createTime: Date
    /// Whether a publish must go through a change request.
    public var requireApproval: Bool
    /// How many approvals a change request needs.
    public var approvalsRequired: Int
    /// The environment this project is ("staging"); null when none was named.
    public var environmentName: String?
    /// The project this one's published versions are promoted into; null when none.
    public var promotesTo: String?
    /// Parameters that belong to this environment and never travel with a promotion from it.
    public var localParameters: [String]

    public init(
        projectId: String, displayName: String, createTime: Date, requireApproval: Bool, approvalsRequired: Int,
        environmentName: String? = nil, promotesTo: String? = nil, localParameters: [String] = []
    ) {
        self.projectId = projectId
        self.displayName = displayName
        self.createTime = createTime
        self.requireApproval = requireApproval
        self.approvalsRequired = approvalsRequired
        self.environmentName = environmentName
        self.promotesTo = promotesTo
        self.localParameters = localParameters
    }

    private enum CodingKeys: String, CodingKey {
        case projectId, displayName, createTime, requireApproval, approvalsRequired, environmentName, promotesTo
        case localParameters
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        projectId = try container.decode(String.self, forKey: .projectId)
        displayName = try container.decode(String.self, forKey: .displayName)
        createTime = try container.decode(Date.self, forKey: .createTime)
        requireApproval = try container.decode(Bool.self, forKey: .requireApproval)
        approvalsRequired = try container.decode(Int.self, forKey: .approvalsRequired)
        environmentName = try container.decodeIfPresent(String.self, forKey: .environmentName)
        promotesTo = try container.decodeIfPresent(String.self, forKey: .promotesTo)
        // Servers before environments did not write it.
        localParameters = try container.decodeIfPresent([String].self, forKey: .localParameters) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(projectId, forKey: .projectId)
        try container.encode(displayName, forKey: .displayName)
        try container.encode(createTime, forKey: .createTime)
        try container.encode(requireApproval, forKey: .requireApproval)
        try container.encode(approvalsRequired, forKey: .approvalsRequired)
        // Null rather than absent, so a reader sees every field.
        try container.encode(environmentName, forKey: .environmentName)
        try container.encode(promotesTo, forKey: .promotesTo)
        try container.encode(localParameters, forKey: .localParameters)
    }
}
