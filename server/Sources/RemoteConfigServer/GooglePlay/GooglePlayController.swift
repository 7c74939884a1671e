import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `…/storeSync/googlePlay`: a project's link to its app on Google Play (read, replace, remove) and `:run` to
/// sync it now. The service-account key goes in with a `PUT` and never comes out.
struct GooglePlayController {
    let links: GooglePlayLinkStore
    let templates: TemplateStore
    let sync: GooglePlaySync
    let access: ProjectAccess

    func addRoutes(to routes: Routes) {
        routes.get("/v1/projects/{p}/storeSync/googlePlay", use: get)
        routes.put("/v1/projects/{p}/storeSync/googlePlay", use: save)
        routes.delete("/v1/projects/{p}/storeSync/googlePlay", use: delete)
        routes.post("/v1/projects/{p}/storeSync/googlePlay:run", use: run)
    }

    @Sendable func get(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, _) = try await access.project(request, context, .viewer)
        let link = try await links.get(project)
        return try RevisionETag.response(Self.body(link), etag: Self.etag(project, link))
    }

    @Sendable func save(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let body = try await GooglePlayLinkBody.read(request, context: context)
        let published = try await templates.latest(project)
        let template = try published.map { try RemoteConfigTemplate(json: Array($0.templateJSON.utf8)) }
        try body.check(in: template ?? RemoteConfigTemplate())
        let expected = RevisionETag.expected(request, kind: Self.kind, name: project)
        if body.key == nil, try await links.get(project) == nil {
            throw APIError.invalidField(
                "serviceAccountKey", reason: "REQUIRED",
                "serviceAccountKey is required for a new link: the JSON key file of the service account "
                    + "invited in Play Console")
        }
        let link: RemoteConfigStore.GooglePlayLink
        do {
            link = try await links.save(
                project, body.settings, key: body.key, expectedRevision: expected, actor: key.auditActor)
        } catch StoreError.notFound {
            // Removed since it was read above: the stored key went with it.
            throw APIError.invalidField(
                "serviceAccountKey", reason: "REQUIRED", "serviceAccountKey is required for a new link")
        }
        if link.settings.enabled { sync.wake() }
        return try RevisionETag.response(Self.body(link), etag: Self.etag(project, link))
    }

    @Sendable func delete(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let expected = RevisionETag.expected(request, kind: Self.kind, name: project)
        guard try await links.delete(project, expectedRevision: expected, actor: key.auditActor) else {
            throw APIError.notFound("\(project) has no Google Play link")
        }
        return try RevisionETag.response(Self.body(nil), etag: Self.etag(project, nil))
    }

    @Sendable func run(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        guard try await links.get(project) != nil else {
            throw APIError.invalidField(
                "packageName", reason: "NO_STORE_LINK",
                "\(project) has no Google Play link: PUT /v1/projects/\(project)/storeSync/googlePlay first")
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
        case .notLive:
            answer.result = "NOT_LIVE"
        case .failed:
            answer.result = "FAILED"
        }
        return try RevisionETag.response(answer, etag: Self.etag(project, result.link))
    }

    /// What a Google Play link's ETag starts with: `"googlePlay-<project>-<revision>"`, 0 when there is none.
    static let kind = "googlePlay"

    /// The ETag of the link's settings; a sync changes its status, never its ETag.
    static func etag(_ project: String, _ link: RemoteConfigStore.GooglePlayLink?) -> String {
        RevisionETag.make(kind: kind, name: project, revision: link?.revision ?? 0)
    }

    /// The link as the API shows it, without its key; a project without one shows the defaults, switched off.
    static func body(_ link: RemoteConfigStore.GooglePlayLink?) -> RemoteConfigAPI.GooglePlayLink {
        guard let link else {
            return RemoteConfigAPI.GooglePlayLink(
                enabled: false, packageName: nil, track: GooglePlayLinkBody.defaultTrack,
                intervalSeconds: GooglePlayLinkBody.defaultInterval, serviceAccount: nil,
                stagedRollouts: GooglePlayStagedRollouts.completedOnly.rawValue, autoApprove: false)
        }
        let settings = link.settings
        let status = link.status
        return RemoteConfigAPI.GooglePlayLink(
            enabled: settings.enabled, packageName: settings.packageName, track: settings.track,
            intervalSeconds: settings.intervalSeconds,
            serviceAccount: .init(
                clientEmail: link.serviceAccount.clientEmail, privateKeyId: link.serviceAccount.privateKeyId),
            parameters: StoreLinkTargets(settings.parameters.map { .init(parameter: $0.parameter, field: $0.field) }),
            condition: settings.condition, stagedRollouts: settings.stagedRollouts.rawValue,
            autoApprove: settings.autoApprove, lastSyncTime: status.lastSyncTime,
            liveRelease: status.lastRelease.map {
                .init(name: $0.name, versionCode: $0.versionCode, status: $0.status, userFraction: $0.userFraction)
            },
            lastError: status.lastError, consecutiveFailures: status.consecutiveFailures,
            nextSyncTime: settings.enabled ? status.nextSyncTime : nil, updateTime: link.updateTime)
    }
}
