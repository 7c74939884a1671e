/// `PATCH /v1/projects/{p}`: the settings to change, each optional; a field the route does not know is refused.
/// `environmentName` and `promotesTo` may be `null`, which clears them.
public struct UpdateProjectRequest: Codable, Sendable, Equatable {
    public var displayName: String?
    public var requireApproval: Bool?
    /// A number, so that `1.5` is refused as out of range rather than as not a number, as it always was.
    public var approvalsRequired: Double?
    /// `.some(nil)`: sent as `null`, to clear it.
    public var environmentName: String??
    /// `.some(nil)`: sent as `null`, to unlink the project.
    public var promotesTo: String??
    public var localParameters: [String]?

    public init(
        displayName: String? = nil, requireApproval: Bool? = nil, approvalsRequired: Double? = nil,
        environmentName: String?? = nil, promotesTo: String?? = nil, localParameters: [String]? = nil
    ) {
        self.displayName = displayName
        self.requireApproval = requireApproval
        self.approvalsRequired = approvalsRequired
        self.environmentName = environmentName
        self.promotesTo = promotesTo
        self.localParameters = localParameters
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case displayName, requireApproval, approvalsRequired, environmentName, promotesTo, localParameters
    }

    public init(from decoder: any Decoder) throws {
        try AnyKey.refuseUnknown(
            in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)),
            "is not a project setting; PATCH takes displayName, requireApproval, approvalsRequired, environmentName, "
                + "promotesTo, localParameters")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        requireApproval = try container.decodeIfPresent(Bool.self, forKey: .requireApproval)
        approvalsRequired = try container.decodeIfPresent(Double.self, forKey: .approvalsRequired)
        environmentName = try Self.clearable(container, .environmentName)
        promotesTo = try Self.clearable(container, .promotesTo)
        localParameters = try container.decodeIfPresent([String].self, forKey: .localParameters)
    }

    /// Absent: nil; `null`: `.some(nil)`; a string: that string.
    private static func clearable(_ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys) throws
        -> String??
    {
        guard container.contains(key) else { return nil }
        if try container.decodeNil(forKey: key) { return .some(nil) }
        return .some(try container.decode(String.self, forKey: key))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(displayName, forKey: .displayName)
        try container.encodeIfPresent(requireApproval, forKey: .requireApproval)
        try container.encodeIfPresent(approvalsRequired, forKey: .approvalsRequired)
        if let environmentName { try container.encode(environmentName, forKey: .environmentName) }
        if let promotesTo { try container.encode(promotesTo, forKey: .promotesTo) }
        try container.encodeIfPresent(localParameters, forKey: .localParameters)
    }
}
