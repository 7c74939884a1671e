import RemoteConfigCore

/// The body of `POST …/remoteConfig:impact`: one candidate to estimate (a template, the draft or a change
/// request), the start of the window of recently seen instances, and the force-update parameter to watch.
///
/// Decoding refuses a member it does not know, and a body naming no candidate or more than one.
public struct ImpactRequest: Codable, Sendable, Equatable {
    /// What would be published.
    public enum Candidate: Sendable, Equatable {
        /// A template body, as a publish would send it.
        case template(JSONValue)
        /// The project's draft.
        case draft
        /// The template of change request `<id>`.
        case changeRequest(Int64)
    }

    public var candidate: Candidate
    /// RFC 3339; absent for seven days ago.
    public var since: String?
    /// Absent for `require_force_update`.
    public var forceUpdateParameter: String?

    public init(candidate: Candidate, since: String? = nil, forceUpdateParameter: String? = nil) {
        self.candidate = candidate
        self.since = since
        self.forceUpdateParameter = forceUpdateParameter
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case template, draft, changeRequest, since, forceUpdateParameter
    }

    public init(from decoder: any Decoder) throws {
        try AnyKey.refuseUnknown(
            in: decoder, known: Set(CodingKeys.allCases.map(\.rawValue)), "is not a field of an impact request")
        let container = try decoder.container(keyedBy: CodingKeys.self)
        candidate = try Self.candidate(container, of: decoder)
        since = try Self.text(container, .since, of: decoder) { RFC3339.parse($0) != nil }
        forceUpdateParameter = try Self.text(container, .forceUpdateParameter, of: decoder) {
            !$0.isEmpty && $0.count <= 256
        }
    }

    /// The one candidate the body names; a member sent as `null` still names one.
    private static func candidate(_ container: KeyedDecodingContainer<CodingKeys>, of decoder: any Decoder) throws
        -> Candidate
    {
        let named = [CodingKeys.template, .draft, .changeRequest].filter { container.contains($0) }
        guard named.count == 1, let key = named.first else {
            var problems = FieldProblems(summary: nil)
            problems.add(
                named.isEmpty ? "template" : named[1].rawValue, named.isEmpty ? "REQUIRED" : "CONFLICTING_FIELDS",
                "name exactly one candidate: template, draft or changeRequest")
            throw problems
        }
        switch key {
        case .template:
            guard case .object? = try container.decodeIfPresent(JSONValue.self, forKey: .template) else {
                throw refusal(.template, of: decoder, "NOT_AN_OBJECT", "must be a template object")
            }
            return .template(try container.decode(JSONValue.self, forKey: .template))
        case .draft:
            guard (try? container.decodeIfPresent(Bool.self, forKey: .draft)) == true else {
                throw refusal(.draft, of: decoder, "NOT_TRUE", "must be true to estimate the draft")
            }
            return .draft
        default:
            let text: String?
            do {
                text = try container.decodeIfPresent(String.self, forKey: .changeRequest)
            } catch DecodingError.typeMismatch {
                text = nil
            } catch {
                text = ""
            }
            guard let text else { throw refusal(.changeRequest, of: decoder, "NOT_A_STRING", "must be a string") }
            let id = text.hasPrefix("changeRequests/") ? String(text.dropFirst("changeRequests/".count)) : text
            guard let number = Int64(id), number >= 1 else {
                throw refusal(
                    .changeRequest, of: decoder, "INVALID_CHANGE_REQUEST",
                    "must be a change request id such as \"12\" or \"changeRequests/12\"")
            }
            return .changeRequest(number)
        }
    }

    /// An optional string `accepts` takes; anything else, `null` included, is refused with the field's reason.
    private static func text(
        _ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, of decoder: any Decoder,
        accepts: (String) -> Bool
    ) throws -> String? {
        guard container.contains(key) else { return nil }
        if let text = try? container.decodeIfPresent(String.self, forKey: key), accepts(text) { return text }
        throw key == .since
            ? refusal(.since, of: decoder, "INVALID_TIME", "must be an RFC 3339 time")
            : refusal(key, of: decoder, "NOT_A_STRING", "must be a parameter key")
    }

    private static func refusal(_ key: CodingKeys, of decoder: any Decoder, _ reason: String, _ message: String)
        -> DecodingError
    {
        FieldProblem.at([key], of: decoder, FieldProblem(reason: reason, message))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch candidate {
        case .template(let template): try container.encode(template, forKey: .template)
        case .draft: try container.encode(true, forKey: .draft)
        case .changeRequest(let id): try container.encode("changeRequests/\(id)", forKey: .changeRequest)
        }
        try container.encodeIfPresent(since, forKey: .since)
        try container.encodeIfPresent(forceUpdateParameter, forKey: .forceUpdateParameter)
    }
}
