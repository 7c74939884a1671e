import Foundation
import MCP
import RemoteConfigCore

/// The tools every MCP transport offers, in one table: each is exactly the admin API call its description names,
/// made with the caller's own credentials. None publishes, approves, rolls back, deletes or reveals a secret.
public enum AssistantTools {
    /// Every tool, in the order `tools/list` answers them.
    public static let all: [AssistantTool] = [
        listProjects, getTemplate, listVersions, diffVersions, validateTemplate, previewFetch, fleetVersions,
        parameterShares, impact, recommendMinimumVersion, listChangeRequests, ProposeChange.tool, getAuditLog,
    ]

    /// The tool named `name`.
    public static func named(_ name: String) -> AssistantTool? { all.first { $0.name == name } }

    private static let never = "It never changes anything."
    private static let version = "^[1-9][0-9]{0,17}$"
    private static let time = "An RFC 3339 time, e.g. 2026-11-20T00:00:00Z."

    static let listProjects = AssistantTool(
        name: "list_projects", title: "List projects",
        description: "Lists the projects the caller may see (GET /v1/projects): ids and display names. \(never)",
        properties: [], readOnly: true,
        action: .call { _ in AdminCall("GET", "/v1/projects") })

    static let getTemplate = AssistantTool(
        name: "get_template", title: "Get the template",
        description:
            "Reads a project's published template, or one earlier version of it (GET /v1/projects/{p}/remoteConfig): "
            + "conditions, parameters and their values. \(never)",
        properties: [
            .project, .string("version", "A version number; without it, the published one.", pattern: version),
        ],
        readOnly: true,
        action: .call { arguments throws(ToolInputError) in
            AdminCall(
                "GET", try arguments.projectPath("/remoteConfig"),
                query: try arguments.queryText("version").map { [.init(name: "versionNumber", value: $0)] } ?? [])
        })

    static let listVersions = AssistantTool(
        name: "list_versions", title: "List published versions",
        description:
            "Lists a project's published versions, newest first, with who published each, when and how "
            + "(GET /v1/projects/{p}/remoteConfig:listVersions). \(never)",
        properties: [
            .project, .integer("pageSize", "At most this many versions.", 1...300),
            .string("pageToken", "The nextPageToken of the previous page."),
        ],
        readOnly: true,
        action: .call { arguments throws(ToolInputError) in
            AdminCall(
                "GET", try arguments.projectPath("/remoteConfig:listVersions"),
                query: try arguments.query(["pageSize", "pageToken"]))
        })

    static let diffVersions = AssistantTool(
        name: "diff_versions", title: "Diff two versions",
        description:
            "What changed between two versions of a project's template, between a version and the draft "
            + "(GET /v1/projects/{p}/remoteConfig:diff), or between a version and a template given here (that version "
            + "read with GET /v1/projects/{p}/remoteConfig, compared as `remote-config template diff` compares a "
            + "file): parameters and conditions added, removed and changed, each with before and after. \(never)",
        properties: [
            .project,
            .string("from", "A version number, or draft.", required: true, pattern: "^([1-9][0-9]{0,17}|draft)$"),
            .string(
                "to", "A version number, or draft (or give a template instead).", pattern: "^([1-9][0-9]{0,17}|draft)$"),
            .object("template", "A whole template to compare the version with (instead of to); it is not stored."),
        ],
        readOnly: true,
        action: .sequence(diffVersions))

    /// `diff_versions`: the diff route for two stored versions; for a given template, the stored one read and
    /// compared with it by the diff the server itself answers with.
    private static func diffVersions(_ arguments: ToolArguments, _ caller: any AdminCaller) async throws
        -> CallTool.Result
    {
        let to = try arguments.string("to")
        let given = try arguments.object("template")
        guard (to == nil) != (given == nil) else {
            throw ToolInputError(
                field: given == nil ? "to" : "template", reason: given == nil ? "REQUIRED" : "CONFLICT",
                message: "give either to or a template, not both")
        }
        guard let given else {
            return ToolResult.of(
                try await caller.send(
                    AdminCall(
                        "GET", try arguments.projectPath("/remoteConfig:diff"),
                        query: try arguments.query(["from", "to"])
                    )))
        }
        let from = try arguments.requiredString("from")
        let read =
            from == "draft"
            ? AdminCall("GET", try arguments.projectPath("/remoteConfig/draft"))
            : AdminCall(
                "GET", try arguments.projectPath("/remoteConfig"), query: [.init(name: "versionNumber", value: from)])
        let stored = try await caller.send(read)
        guard stored.succeeded else { return ToolResult.of(stored) }
        let target: RemoteConfigTemplate
        do {
            var object = try JSONValue(parsing: Value.object(given).jsonBytes).objectValue ?? [:]
            object["version"] = nil
            target = try RemoteConfigTemplate(jsonValue: .object(object))
        } catch {
            throw ToolInputError(field: "template", reason: "INVALID", message: "the template does not read: \(error)")
        }
        // The stored version's own record (number, author, time; a draft's base) is not template content.
        guard var object = try? JSONValue(parsing: stored.body).objectValue else {
            return ToolResult.of(AdminAnswer(status: 502, body: []))
        }
        object["version"] = nil
        object["baseVersionNumber"] = nil
        guard let source = try? RemoteConfigTemplate(jsonValue: .object(object)) else {
            return ToolResult.of(AdminAnswer(status: 502, body: []))
        }
        var diff: JSONObject = ["from": .string(from), "to": .string("template")]
        for member in TemplateDiff(from: source, to: target).jsonObject { diff[member.key] = member.value }
        return ToolResult.of(AdminAnswer(status: 200, body: JSONValue.object(diff).jsonBytes()))
    }

    static let validateTemplate = AssistantTool(
        name: "validate_template", title: "Validate a template",
        description:
            "Checks a whole template exactly as a publish would, and stores nothing "
            + "(PUT /v1/projects/{p}/remoteConfig?validateOnly=true; the editor role, as on the API): the answer is "
            + "the template as it would be published, or the API's error naming the field at fault. It never "
            + "publishes.",
        properties: [.project, .object("template", "A whole template (Firebase's format).", required: true)],
        readOnly: true,
        action: .call { arguments throws(ToolInputError) in
            AdminCall(
                "PUT", try arguments.projectPath("/remoteConfig"), query: [.init(name: "validateOnly", value: "true")],
                body: Value.object(try arguments.object("template") ?? [:]).jsonBytes, ifMatch: "*")
        })

    static let previewFetch = AssistantTool(
        name: "preview_fetch", title: "Preview a fetch",
        description:
            "What an app with this context would get from a fetch, and why: each parameter's value with the "
            + "condition (or default) that decided it, and which conditions hold "
            + "(POST /v1/projects/{p}/remoteConfig:evaluate). Nothing is stored or counted. \(never)",
        properties: [
            .project,
            .object(
                "context",
                "The fetch body an app sends: appInstanceId, platform (IOS, ANDROID, WEB), appVersion, appBuild, "
                    + "osVersion, countryCode, languageCode, customSignals…", required: true),
            .string(
                "version", "A version number or draft; without it, the published template.",
                pattern: "^([1-9][0-9]{0,17}|draft)$"),
        ],
        readOnly: true,
        action: .call { arguments throws(ToolInputError) in
            var body: [String: Value] = ["context": .object(try arguments.object("context") ?? [:])]
            if let version = try arguments.queryText("version") { body["versionNumber"] = .string(version) }
            return AdminCall(
                "POST", try arguments.projectPath("/remoteConfig:evaluate"), body: Value.object(body).jsonBytes)
        })

    static let fleetVersions = AssistantTool(
        name: "fleet_versions", title: "Fleet by app version",
        description:
            "Which app versions are still out there: active instances and answers per platform and version over a "
            + "window, default the last 7 days (GET /v1/projects/{p}/insights/versions). \(never)",
        properties: [
            .project, .choice("platform", "Only this platform.", ["IOS", "ANDROID", "WEB"]),
            .string("since", "The window's start. \(time)"), .string("until", "The window's end. \(time)"),
        ],
        readOnly: true,
        action: .call { arguments throws(ToolInputError) in
            AdminCall(
                "GET", try arguments.projectPath("/insights/versions"),
                query: try arguments.query(["platform", "since", "until"]))
        })

    static let parameterShares = AssistantTool(
        name: "parameter_shares", title: "Parameter value shares",
        description:
            "For each parameter, the share of answers that got each value source (a condition, the default, the "
            + "in-app default), and how often each condition held (GET /v1/projects/{p}/insights/parameters). \(never)",
        properties: [
            .project, .string("since", "The window's start. \(time)"), .string("until", "The window's end. \(time)"),
        ],
        readOnly: true,
        action: .call { arguments throws(ToolInputError) in
            AdminCall(
                "GET", try arguments.projectPath("/insights/parameters"),
                query: try arguments.query(["since", "until"]))
        })

    static let impact = AssistantTool(
        name: "impact", title: "Impact of a change",
        description:
            "What a change would do before it is made: over the app instances seen recently, which parameters' "
            + "answers would change, for how many instances, by platform and version, and how many would newly be "
            + "forced to update (POST /v1/projects/{p}/remoteConfig:impact). Give exactly one of template, draft or "
            + "changeRequest. \(never)",
        properties: [
            .project, .object("template", "A whole candidate template."),
            ToolProperty("draft", ["type": "boolean", "description": "true: the project's draft."]),
            .string("changeRequest", "A change request's id (the <id> of changeRequests/<id>)."),
            .string("since", "The sample's window start, default 7 days ago. \(time)"),
            .string("forceUpdateParameter", "The force-update flag, default require_force_update."),
        ],
        readOnly: true,
        action: .call { arguments throws(ToolInputError) in
            let given = ["template", "draft", "changeRequest"].filter { arguments.has($0) }
            guard given.count == 1 else {
                throw ToolInputError(
                    field: given.last ?? "template", reason: given.isEmpty ? "REQUIRED" : "CONFLICT",
                    message: "give exactly one of template, draft or changeRequest")
            }
            var body: [String: Value] = [:]
            if let template = try arguments.object("template") { body["template"] = .object(template) }
            if let draft = try arguments.bool("draft") { body["draft"] = .bool(draft) }
            if let request = try arguments.string("changeRequest") {
                body["changeRequest"] = .string(ProposeChange.changeRequestID(request))
            }
            for name in ["since", "forceUpdateParameter"] {
                if let text = try arguments.string(name) { body[name] = .string(text) }
            }
            return AdminCall(
                "POST", try arguments.projectPath("/remoteConfig:impact"), body: Value.object(body).jsonBytes)
        })

    static let recommendMinimumVersion = AssistantTool(
        name: "recommend_minimum_version", title: "Recommend a minimum version",
        description:
            "The newest minimum supported version that blocks at most maxBlockedShare of a platform's active "
            + "instances, the current minimum with what it blocks, and when newer versions are forecast to become "
            + "safe (GET /v1/projects/{p}/insights/minimumVersion). \(never)",
        properties: [
            .project, .choice("platform", "The platform.", ["IOS", "ANDROID", "WEB"], required: true),
            ToolProperty(
                "maxBlockedShare",
                [
                    "type": "number", "minimum": 0, "maximum": 1,
                    "description": "The largest share of active instances a raise may block, default 0.01.",
                ]),
            .string("parameter", "The minimum-version parameter, default min_supported_version."),
            .string("since", "The window's start, default 7 days ago. \(time)"),
        ],
        readOnly: true,
        action: .call { arguments throws(ToolInputError) in
            AdminCall(
                "GET", try arguments.projectPath("/insights/minimumVersion"),
                query: try arguments.query(["platform", "maxBlockedShare", "parameter", "since"]))
        })

    static let listChangeRequests = AssistantTool(
        name: "list_change_requests", title: "List change requests",
        description:
            "A project's change requests, newest first, with their state, author, approvals and template "
            + "(GET /v1/projects/{p}/remoteConfig/changeRequests). \(never)",
        properties: [
            .project,
            .choice(
                "state", "Only change requests in this state.",
                ["OPEN", "APPROVED", "SCHEDULED", "PUBLISHED", "REJECTED", "CANCELLED"]),
            .integer("pageSize", "At most this many.", 1...300),
            .string("pageToken", "The nextPageToken of the previous page."),
        ],
        readOnly: true,
        action: .call { arguments throws(ToolInputError) in
            AdminCall(
                "GET", try arguments.projectPath("/remoteConfig/changeRequests"),
                query: try arguments.query(["state", "pageSize", "pageToken"]))
        })

    static let getAuditLog = AssistantTool(
        name: "get_audit_log", title: "Audit log",
        description:
            "Who changed what, newest first: a project's audit log (GET /v1/projects/{p}/auditLog), or without a "
            + "project every event (GET /v1/auditLog, an admin key for all projects). \(never)",
        properties: [
            .string("project", "The project's id; without it, every project.", pattern: "^[a-z][a-z0-9-]{2,62}$"),
            .integer("pageSize", "At most this many events.", 1...1000),
            .string("pageToken", "The nextPageToken of the previous page."),
        ],
        readOnly: true,
        action: .call { arguments throws(ToolInputError) in
            let path = arguments.has("project") ? try arguments.projectPath("/auditLog") : "/v1/auditLog"
            return AdminCall("GET", path, query: try arguments.query(["pageSize", "pageToken"]))
        })
}
