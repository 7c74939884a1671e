import RemoteConfigCore

/// `POST …/changeRequests`: a description and what to propose, a `template` or a `rollbackSource` version (neither:
/// the draft named by `If-Match`), and a `publishTime` (RFC 3339) to publish it then. No other field.
public struct CreateChangeRequestRequest: Codable, Sendable, Equatable {
    public var description: String?
    /// A template payload (an object), kept as sent.
    public var template: JSONValue?
    /// A version number; a whole number is taken too, as people type it.
    public var rollbackSource: String?
    /// Checked by the server, which names the reason (`INVALID_TIME`).
    public var publishTime: String?

    public init(
        description: String? = nil, template: JSONValue? = nil, rollbackSource: String? = nil,
        publishTime: String? = nil
    ) {
        self.description = description
        self.template = template
        self.rollbackSource = rollbackSource
        self.publishTime = publishTime
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case description, template, rollbackSource, publishTime
    }

    public init(from decoder: any Decoder) throws {
        try AnyKey.refuseUnknown(
            in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)),
            "is not a field of a change request; send description, template or rollbackSource, publishTime")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        template = try container.decodeIfPresent(JSONValue.self, forKey: .template)
        if let template, template.objectValue == nil {
            throw FieldProblem.at(
                [CodingKeys.template], of: decoder, FieldProblem(reason: "NOT_AN_OBJECT", "must be an object"))
        }
        rollbackSource = try container.decodeIfPresent(VersionNumberText.self, forKey: .rollbackSource)?.text
        publishTime = try container.decodeIfPresent(String.self, forKey: .publishTime)
    }
}
