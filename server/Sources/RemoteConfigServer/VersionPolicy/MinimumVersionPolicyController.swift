import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `…/minimumVersionPolicy`: read (viewer) and replace (admin) the limits within which the server raises a
/// platform's minimum version by itself. A saved, enabled policy is checked at once.
struct MinimumVersionPolicyController {
    let policies: MinimumVersionPolicyStore
    let templates: TemplateStore
    let projects: ProjectStore
    let access: ProjectAccess
    /// Wakes this server's checks, so a policy saved now is checked within moments.
    let wakeup: Wakeup

    func addRoutes(to routes: Routes) {
        routes.get("/v1/projects/{p}/minimumVersionPolicy", use: get)
        routes.put("/v1/projects/{p}/minimumVersionPolicy", use: save)
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let policy = try await policies.get(project)
        return try RevisionETag.response(Self.body(policy), etag: Self.etag(project, policy))
    }

    @Sendable func save(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let sent = try await JSONBody.decode(MinimumVersionPolicyRequest.self, request, context: context)
        let settings = Self.settings(sent)
        try await check(settings, project: project)
        let expected = RevisionETag.expected(request, kind: Self.kind, name: project)
        let policy = try await policies.save(project, settings, expectedRevision: expected, actor: key.auditActor)
        if settings.enabled { wakeup.wake() }
        return try RevisionETag.response(Self.body(policy), etag: Self.etag(project, policy))
    }

    /// The settings `sent` asks for, with the defaults of the fields left out.
    static func settings(_ sent: MinimumVersionPolicyRequest) -> MinimumVersionPolicySettings {
        MinimumVersionPolicySettings(
            enabled: sent.enabled ?? true, platform: sent.platform,
            parameter: sent.parameter ?? MinimumVersionPolicyRequest.defaultParameter, condition: sent.condition,
            maxBlockedShare: sent.maxBlockedShare ?? MinimumVersionPolicyRequest.defaultMaxBlockedShare,
            minActiveInstances: sent.minActiveInstances ?? MinimumVersionPolicyRequest.defaultMinActiveInstances,
            neverAbove: sent.neverAbove, keepBehindLatest: sent.keepBehindLatest ?? 0,
            checkIntervalSeconds: sent.checkIntervalSeconds ?? MinimumVersionPolicyRequest.defaultCheckInterval,
            action: sent.action.flatMap(MinimumVersionPolicySettings.Action.init(rawValue:)) ?? .changeRequest)
    }

    /// 400 naming every field that names what the published template lacks, or a `PUBLISH` the project's
    /// approvals forbid.
    private func check(_ settings: MinimumVersionPolicySettings, project: String) async throws {
        var problems = FieldProblems(summary: "the minimum version policy is not valid")
        if settings.action == .publish, try await projects.get(project)?.requireApproval == true {
            problems.add(
                "action", "APPROVAL_REQUIRED",
                "\(project) requires approval, so the policy cannot publish: use CHANGE_REQUEST")
        }
        let published = try await templates.latest(project)
        let template = try published.map { try RemoteConfigTemplate(json: Array($0.templateJSON.utf8)) }
        var types: [String: ValueType] = [:]
        for item in template?.allParameters ?? [] { types[item.key] = item.parameter.valueType }
        for (field, name) in [("parameter", settings.parameter), ("neverAbove", settings.neverAbove)] {
            guard let name else { continue }
            switch types[name] {
            case nil:
                problems.add(
                    field, "PARAMETER_NOT_FOUND",
                    "\(name) is not a parameter of the published template; publish it first")
            case .string?:
                break
            case let type?:
                problems.add(
                    field, "NOT_A_STRING_PARAMETER",
                    "\(name) is a \(type.rawValue) parameter; versions are STRING values")
            }
        }
        if let condition = settings.condition, template?.conditions.contains(where: { $0.name == condition }) != true {
            problems.add(
                "condition", "CONDITION_NOT_FOUND", "\(condition) is not a condition of the published template")
        }
        try problems.throwIfAny()
    }

    /// What a policy's ETag starts with: `"minimumVersionPolicy-<project>-<revision>"`, revision 0 before the first
    /// `PUT`.
    static let kind = "minimumVersionPolicy"

    /// The ETag of the policy's settings; a check changes its status, never its ETag.
    static func etag(_ project: String, _ policy: RemoteConfigStore.MinimumVersionPolicy?) -> String {
        RevisionETag.make(kind: kind, name: project, revision: policy?.revision ?? 0)
    }

    /// The policy as the API shows it; a project that never had one shows the defaults, switched off.
    static func body(_ policy: RemoteConfigStore.MinimumVersionPolicy?) -> RemoteConfigAPI.MinimumVersionPolicy {
        guard let policy else {
            return RemoteConfigAPI.MinimumVersionPolicy(
                enabled: false, platform: nil, parameter: MinimumVersionPolicyRequest.defaultParameter,
                condition: nil, maxBlockedShare: MinimumVersionPolicyRequest.defaultMaxBlockedShare,
                minActiveInstances: MinimumVersionPolicyRequest.defaultMinActiveInstances, neverAbove: nil,
                keepBehindLatest: 0, checkIntervalSeconds: MinimumVersionPolicyRequest.defaultCheckInterval,
                action: MinimumVersionPolicySettings.Action.changeRequest.rawValue)
        }
        let settings = policy.settings
        let status = policy.status
        return RemoteConfigAPI.MinimumVersionPolicy(
            enabled: settings.enabled, platform: settings.platform, parameter: settings.parameter,
            condition: settings.condition, maxBlockedShare: settings.maxBlockedShare,
            minActiveInstances: settings.minActiveInstances, neverAbove: settings.neverAbove,
            keepBehindLatest: settings.keepBehindLatest, checkIntervalSeconds: settings.checkIntervalSeconds,
            action: settings.action.rawValue, lastCheckTime: status.lastCheckTime,
            lastResult: status.lastResult?.rawValue, lastRecommendation: status.lastRecommendation,
            lastDetail: status.lastDetail,
            lastChangeRequest: status.openRequestId.map(RemoteConfigStore.ChangeRequest.name),
            nextCheckTime: settings.enabled ? status.nextCheckTime : nil, updateTime: policy.updateTime)
    }
}
