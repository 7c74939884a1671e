import Foundation
import RemoteConfigCore

/// One event of the audit log: who did what, when; `detail` is the action's own facts (a publish's version, a
/// key's role, …) as recorded.
public struct AuditLogEntry: Codable, Sendable, Equatable {
    public var time: Date
    /// Who acted: the person and the key, with the key's display name at the time.
    public var actor: ActingKey
    /// `apiKeys/<id>` of the acting key; null for events recorded before keys were.
    public var actorKey: String?
    /// `template.publish`, `apiKey.create`, …
    public var action: String
    public var detail: JSONValue
    /// Only in the log of all projects (`GET /v1/auditLog`), where `.some(nil)` is an event of no single project
    /// (a key for all projects), written `null`; nil in a project's own log, which leaves the member out.
    public var project: String??

    public init(
        time: Date, actor: ActingKey, actorKey: String?, action: String, detail: JSONValue, project: String?? = nil
    ) {
        self.time = time
        self.actor = actor
        self.actorKey = actorKey
        self.action = action
        self.detail = detail
        self.project = project
    }

    private enum CodingKeys: String, CodingKey {
        case time, actor, actorKey, action, detail, project
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        time = try container.decode(Date.self, forKey: .time)
        // Servers before people were recorded wrote the key's display name alone.
        if let name = try? container.decode(String.self, forKey: .actor) {
            actor = ActingKey(key: nil, displayName: name)
        } else {
            actor = try container.decode(ActingKey.self, forKey: .actor)
        }
        actorKey = try container.decodeIfPresent(String.self, forKey: .actorKey)
        action = try container.decode(String.self, forKey: .action)
        detail = try container.decode(JSONValue.self, forKey: .detail)
        project =
            container.contains(.project) ? .some(try container.decodeIfPresent(String.self, forKey: .project)) : nil
    }

    /// `actorKey` is `null` rather than left out, as is `project` in the log of all projects.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(time, forKey: .time)
        try container.encode(actor, forKey: .actor)
        try container.encode(actorKey, forKey: .actorKey)
        try container.encode(action, forKey: .action)
        try container.encode(detail, forKey: .detail)
        if let project { try container.encode(project, forKey: .project) }
    }
}
