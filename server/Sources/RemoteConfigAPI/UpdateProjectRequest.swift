/// `PATCH /v1/projects/{p}`: the settings to change, each optional; a field the route does not know is refused.
public struct UpdateProjectRequest: Codable, Sendable, Equatable {
    public var displayName: String?
    public var requireApproval: Bool?
    /// A number, so that `1.5` is refused as out of range rather than as not a number, as it always was.
    public var approvalsRequired: Double?

    public init(displayName: String? = nil, requireApproval: Bool? = nil, approvalsRequired: Double? = nil) {
        self.displayName = displayName
        self.requireApproval = requireApproval
        self.approvalsRequired = approvalsRequired
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case displayName, requireApproval, approvalsRequired
    }

    public init(from decoder: any Decoder) throws {
        try AnyKey.refuseUnknown(
            in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)),
            "is not a project setting; PATCH takes displayName, requireApproval, approvalsRequired")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        requireApproval = try container.decodeIfPresent(Bool.self, forKey: .requireApproval)
        approvalsRequired = try container.decodeIfPresent(Double.self, forKey: .approvalsRequired)
    }
}
