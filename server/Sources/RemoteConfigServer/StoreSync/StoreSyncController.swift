import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `…/storeSync`: a project's link to its App Store listing (read, replace) and `:run` to sync it now.
struct StoreSyncController {
    let links: StoreLinkStore
    let templates: TemplateStore
    let sync: StoreSync
    let access: ProjectAccess

    func addRoutes(to routes: Routes) {
        routes.get("/v1/projects/{p}/storeSync", use: get)
        routes.put("/v1/projects/{p}/storeSync", use: save)
        routes.post("/v1/projects/{p}/storeSync:run", use: run)
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let link = try await links.get(project)
        return try RevisionETag.response(Self.body(link), etag: Self.etag(project, link))
    }

    @Sendable func save(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let body = try await StoreLinkBody.read(request, context: context)
        let published = try await templates.latest(project)
        let template = try published.map { try RemoteConfigTemplate(json: Array($0.templateJSON.utf8)) }
        try body.checkTargets(in: template ?? RemoteConfigTemplate())
        let expected = RevisionETag.expected(request, kind: Self.kind, name: project)
        let link = try await links.save(project, body.settings, expectedRevision: expected, actor: key.auditActor)
        // Due at once: a replica syncs it within moments (this one, unless another is quicker).
        if link.settings.enabled { sync.wake() }
        return try RevisionETag.response(Self.body(link), etag: Self.etag(project, link))
    }

    @Sendable func run(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        guard try await links.get(project) != nil else {
            throw APIError.invalidField(
                "appStoreId", reason: "NO_STORE_LINK",
                "\(project) has no store link: PUT /v1/projects/\(project)/storeSync first")
        }
        let result = try await sync.run(project, actor: key.auditActor)
        var answer = Self.body(result.link)
        switch result.outcome {
        case .published(let number):
            answer.result = "PUBLISHED"
            answer.publishedVersionNumber = String(number)
        case .changeRequest(let id):
            answer.result = "CHANGE_REQUEST"
            answer.changeRequest = "changeRequests/\(id)"
        case .unchanged:
            answer.result = "UNCHANGED"
        case .pending:
            answer.result = "PENDING"
        case .failed:
            answer.result = "FAILED"
        }
        return try RevisionETag.response(answer, etag: Self.etag(project, result.link))
    }

    /// What a store link's ETag starts with: `"storeSync-<project>-<revision>"`, revision 0 before the first `PUT`.
    static let kind = "storeSync"

    /// The ETag of the link's settings; a sync changes its status, never its ETag, so it never makes a `PUT` stale.
    static func etag(_ project: String, _ link: RemoteConfigStore.StoreLink?) -> String {
        RevisionETag.make(kind: kind, name: project, revision: link?.revision ?? 0)
    }

    /// The link as the API shows it; a project that never had one shows the defaults, switched off.
    static func body(_ link: RemoteConfigStore.StoreLink?) -> RemoteConfigAPI.StoreLink {
        guard let link else {
            return RemoteConfigAPI.StoreLink(
                enabled: false, appStoreId: nil, country: StoreLinkBody.defaultCountry,
                intervalSeconds: StoreLinkBody.defaultInterval, autoApprove: false,
                releaseDelaySeconds: StoreLinkSettings.defaultReleaseDelay)
        }
        let settings = link.settings
        let status = link.status
        return RemoteConfigAPI.StoreLink(
            enabled: settings.enabled, appStoreId: settings.appStoreId, country: settings.country,
            intervalSeconds: settings.intervalSeconds,
            parameters: StoreLinkTargets(settings.parameters.map { .init(parameter: $0.parameter, field: $0.field) }),
            autoApprove: settings.autoApprove, lastSyncTime: status.lastSyncTime,
            lastStoreVersion: status.lastStoreVersion, lastError: status.lastError,
            consecutiveFailures: status.consecutiveFailures,
            nextSyncTime: settings.enabled ? status.nextSyncTime : nil, updateTime: link.updateTime,
            releaseDelaySeconds: settings.releaseDelaySeconds, pendingStoreVersion: status.pendingStoreVersion,
            pendingUntil: status.pendingUntil)
    }
}
