import Foundation
import Hummingbird
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
        return JSONResponse.make(Self.json(try await links.get(project)))
    }

    @Sendable func save(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .admin)
        let body = try await StoreLinkBody.read(request, context: context)
        let published = try await templates.latest(project)
        let template = try published.map { try RemoteConfigTemplate(json: Array($0.templateJSON.utf8)) }
        try body.checkTargets(in: template ?? RemoteConfigTemplate())
        let link = try await links.save(project, body.settings, actor: key.auditActor)
        // Due at once: a replica syncs it within moments (this one, unless another is quicker).
        if link.settings.enabled { sync.wake() }
        return JSONResponse.make(Self.json(link))
    }

    @Sendable func run(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, key) = try await access.project(request, context, .editor)
        guard try await links.get(project) != nil else {
            throw APIError.invalidField(
                "appStoreId", reason: "NO_STORE_LINK",
                "\(project) has no store link: PUT /v1/projects/\(project)/storeSync first")
        }
        let result = try await sync.run(project, actor: key.auditActor)
        var object = Self.json(result.link)
        switch result.outcome {
        case .published(let number):
            object["result"] = .string("PUBLISHED")
            object["publishedVersionNumber"] = .string(String(number))
        case .changeRequest(let id):
            object["result"] = .string("CHANGE_REQUEST")
            object["changeRequest"] = .string("changeRequests/\(id)")
        case .unchanged:
            object["result"] = .string("UNCHANGED")
        case .pending:
            object["result"] = .string("PENDING")
        case .failed:
            object["result"] = .string("FAILED")
        }
        return JSONResponse.make(object)
    }

    /// The link as the API shows it; a project that never had one shows the defaults, switched off.
    static func json(_ link: StoreLink?) -> JSONObject {
        func time(_ date: Date?) -> JSONValue { date.map { .string(JSONResponse.timestamp($0)) } ?? .null }
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        guard let link else {
            return [
                "enabled": .bool(false), "appStoreId": .null, "country": .string(StoreLinkBody.defaultCountry),
                "intervalSeconds": .integer(StoreLinkBody.defaultInterval), "parameters": .object([:]),
                "autoApprove": .bool(false), "lastSyncTime": .null, "lastStoreVersion": .null, "lastError": .null,
                "consecutiveFailures": .integer(0), "nextSyncTime": .null,
                "releaseDelaySeconds": .integer(StoreLinkSettings.defaultReleaseDelay),
                "pendingStoreVersion": .null, "pendingUntil": .null,
            ]
        }
        let settings = link.settings
        let status = link.status
        return [
            "enabled": .bool(settings.enabled), "appStoreId": .string(settings.appStoreId),
            "country": .string(settings.country), "intervalSeconds": .integer(settings.intervalSeconds),
            "parameters": .object(
                JSONObject(settings.parameters.map { JSONObject.Member(key: $0.parameter, value: .string($0.field)) })),
            "autoApprove": .bool(settings.autoApprove), "lastSyncTime": time(status.lastSyncTime),
            "lastStoreVersion": text(status.lastStoreVersion), "lastError": text(status.lastError),
            "consecutiveFailures": .integer(status.consecutiveFailures),
            "nextSyncTime": settings.enabled ? time(status.nextSyncTime) : .null,
            "updateTime": time(link.updateTime), "releaseDelaySeconds": .integer(settings.releaseDelaySeconds),
            "pendingStoreVersion": text(status.pendingStoreVersion), "pendingUntil": time(status.pendingUntil),
        ]
    }
}
