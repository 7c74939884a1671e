import RemoteConfigCore

/// `POST …/remoteConfig:evaluate`: the caller to evaluate for (a fetch body's fields; the instance id may be
/// absent) and the version (`"7"`, `7` or `"draft"`; absent for the published one). No other member.
public struct PreviewRequest: Codable, Sendable, Equatable {
    /// A fetch body, checked as a fetch checks it.
    public var context: JSONValue?
    public var versionNumber: JSONValue?

    public init(context: JSONValue? = nil, versionNumber: JSONValue? = nil) {
        self.context = context
        self.versionNumber = versionNumber
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case context, versionNumber
    }

    public init(from decoder: any Decoder) throws {
        try AnyKey.refuseUnknown(
            in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)), "is not a field of a preview request")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        context = try container.decodeIfPresent(JSONValue.self, forKey: .context)
        versionNumber = try container.decodeIfPresent(JSONValue.self, forKey: .versionNumber)
    }
}
