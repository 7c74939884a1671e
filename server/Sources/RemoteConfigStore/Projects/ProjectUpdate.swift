import Foundation

/// The settings `PATCH /v1/projects/{p}` changes; nil leaves a setting as it is.
public struct ProjectUpdate: Sendable, Equatable {
    public var displayName: String?
    public var requireApproval: Bool?
    public var approvalsRequired: Int?
    /// `.some(nil)` clears the setting.
    public var environmentName: String??
    /// `.some(nil)` unlinks the project.
    public var promotesTo: String??
    public var localParameters: [String]?

    public init(
        displayName: String? = nil, requireApproval: Bool? = nil, approvalsRequired: Int? = nil,
        environmentName: String?? = nil, promotesTo: String?? = nil, localParameters: [String]? = nil
    ) {
        self.displayName = displayName
        self.requireApproval = requireApproval
        self.approvalsRequired = approvalsRequired
        self.environmentName = environmentName
        self.promotesTo = promotesTo
        self.localParameters = localParameters
    }

    /// The most approvals a project may require (the database checks it too).
    public static let maximumApprovals = 10
}
