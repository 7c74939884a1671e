/// `POST …/webhooks` and `PATCH …/webhooks/{id}`: the fields people set; creating requires `url` and `events`
/// and takes no `enabled`, a `PATCH` takes any of them. A field the route does not know is refused.
public struct WebhookRequest: Encodable, Sendable, Equatable {
    public var url: String?
    public var events: [String]?
    /// `JSON` (the default) or `SLACK`.
    public var format: String?
    public var description: String?
    /// Only in a `PATCH`.
    public var enabled: Bool?

    public init(
        url: String? = nil, events: [String]? = nil, format: String? = nil, description: String? = nil,
        enabled: Bool? = nil
    ) {
        self.url = url
        self.events = events
        self.format = format
        self.description = description
        self.enabled = enabled
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case url, events, format, description, enabled
    }

    /// Decodes a create (`creating`) or a `PATCH` body.
    public init(from decoder: any Decoder, creating: Bool) throws {
        var known = Set(CodingKeys.allCases.map(\.rawValue))
        if creating { known.remove("enabled") }
        try AnyKey.refuseUnknown(
            in: decoder, known: known,
            "is not a webhook field; send url, events, format, description" + (creating ? "" : ", enabled"))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        url =
            try creating
            ? container.decode(String.self, forKey: .url) : container.decodeIfPresent(String.self, forKey: .url)
        events = try Self.events(container, of: decoder)
        if creating, events == nil {
            throw DecodingError.keyNotFound(
                CodingKeys.events, .init(codingPath: decoder.codingPath, debugDescription: "events is missing"))
        }
        format = try container.decodeIfPresent(String.self, forKey: .format)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled)
    }

    /// The event names; an element that is not a string is not an event (as one that names none).
    private static func events(_ container: KeyedDecodingContainer<CodingKeys>, of decoder: any Decoder) throws
        -> [String]?
    {
        guard try container.contains(.events) && !container.decodeNil(forKey: .events) else { return nil }
        var elements: any UnkeyedDecodingContainer
        do {
            elements = try container.nestedUnkeyedContainer(forKey: .events)
        } catch {
            throw FieldProblem.at(
                [CodingKeys.events], of: decoder,
                FieldProblem(reason: "NOT_AN_ARRAY", "must be an array of event names"))
        }
        var names: [String] = []
        while !elements.isAtEnd {
            let index = elements.currentIndex
            guard let name = try? elements.decode(String.self) else {
                throw FieldProblem.at(
                    [CodingKeys.events, AnyKey(intValue: index)], of: decoder,
                    FieldProblem(reason: "UNKNOWN_EVENT", "is not an event"))
            }
            names.append(name)
        }
        return names
    }
}
