/// The body of `POST /v1/projects/{to}/remoteConfig:promote`: which published version of which project, which
/// parameters, and how the result reaches the target. Every member is optional; any other member is refused.
public struct PromoteRequest: Codable, Sendable, Equatable {
    /// The source project; absent: the one project whose `promotesTo` is the target.
    public var from: String?
    /// A decimal string (a JSON number is read too); absent: the source's published version.
    public var fromVersionNumber: String?
    /// The parameters to promote; absent: every parameter but the source's local ones.
    public var parameters: [String]?
    public var overwriteTargetChanges: Bool?
    public var validateOnly: Bool?
    public var description: String?
    /// `PUBLISH`, `DRAFT` or `CHANGE_REQUEST`.
    public var `as`: String?

    public static let modes = ["PUBLISH", "DRAFT", "CHANGE_REQUEST"]

    public init(
        from: String? = nil, fromVersionNumber: String? = nil, parameters: [String]? = nil,
        overwriteTargetChanges: Bool? = nil, validateOnly: Bool? = nil, description: String? = nil,
        as mode: String? = nil
    ) {
        self.from = from
        self.fromVersionNumber = fromVersionNumber
        self.parameters = parameters
        self.overwriteTargetChanges = overwriteTargetChanges
        self.validateOnly = validateOnly
        self.description = description
        self.as = mode
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case from, fromVersionNumber, parameters, overwriteTargetChanges, validateOnly, description
        case `as`
    }

    public init(from decoder: any Decoder) throws {
        try AnyKey.refuseUnknown(
            in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)),
            "is not a field of a promotion; it takes from, fromVersionNumber, parameters, overwriteTargetChanges, "
                + "validateOnly, description, as")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        from = try container.decodeIfPresent(String.self, forKey: .from)
        if let number = try? container.decodeIfPresent(Int64.self, forKey: .fromVersionNumber) {
            fromVersionNumber = String(number)
        } else {
            fromVersionNumber = try container.decodeIfPresent(String.self, forKey: .fromVersionNumber)
        }
        parameters = try container.decodeIfPresent([String].self, forKey: .parameters)
        overwriteTargetChanges = try container.decodeIfPresent(Bool.self, forKey: .overwriteTargetChanges)
        validateOnly = try container.decodeIfPresent(Bool.self, forKey: .validateOnly)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        self.as = try container.decodeIfPresent(String.self, forKey: .as)
    }
}
