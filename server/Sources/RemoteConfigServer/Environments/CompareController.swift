import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `GET /v1/projects/{p}/remoteConfig:compare?with=S`: drift between two projects' published versions (any two
/// the caller can read), parameter by parameter and condition by condition, compared as a promotion compares
/// them (conditional values through their conditions' expressions).
struct CompareController {
    let projects: ProjectStore
    let templates: TemplateStore
    let access: ProjectAccess

    func addRoutes(to routes: Routes) {
        routes.get(
            "/v1/projects/{p}/remoteConfig:compare", query: ["with", "versionNumber", "withVersionNumber"],
            use: compare)
    }

    @Sendable func compare(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (here, caller) = try await access.project(request, context, .viewer)
        let query = request.uri.queryParameters
        guard let there = query.get("with"), !there.isEmpty else {
            throw APIError.invalidField("with", reason: "REQUIRED", "with is required: the project to compare with")
        }
        guard caller.role(on: there)?.covers(.viewer) == true, let other = try await projects.get(there),
            let this = try await projects.get(here)
        else {
            throw APIError.invalidField("with", reason: "PROJECT_NOT_FOUND", "project \(there) does not exist")
        }
        let mine = try await template(here, query.get("versionNumber"), field: "versionNumber")
        let theirs = try await template(there, query.get("withVersionNumber"), field: "withVersionNumber")
        let local = Set(this.localParameters).union(other.localParameters)
        return TemplateHTTP.response(Self.report(mine, theirs, local: local))
    }

    /// A project's published template, or the version asked for; the empty template before the first publish.
    private func template(_ project: String, _ number: String?, field: String) async throws -> RemoteConfigTemplate {
        let stored: StoredVersion?
        if let wanted = try TemplateHTTP.versionNumber(number, field: field) {
            guard let version = try await templates.version(project, wanted) else {
                throw APIError.invalidField(field, reason: "VERSION_NOT_FOUND", "\(project) has no version \(wanted)")
            }
            stored = version
        } else {
            stored = try await templates.latest(project)
        }
        return try stored.map { try RemoteConfigTemplate(json: Array($0.templateJSON.utf8)) } ?? RemoteConfigTemplate()
    }

    /// The drift report: every parameter key of either side (sorted), and every condition name.
    static func report(_ here: RemoteConfigTemplate, _ there: RemoteConfigTemplate, local: Set<String>)
        -> JSONObject
    {
        let mine = Dictionary(
            here.allParameters.map { ($0.key, $0.parameter) }, uniquingKeysWith: { first, _ in first })
        let theirs = Dictionary(
            there.allParameters.map { ($0.key, $0.parameter) }, uniquingKeysWith: { first, _ in first })
        let parameters = Set(mine.keys).union(theirs.keys).sorted().map { key -> JSONValue in
            let status: String
            switch (mine[key], theirs[key]) {
            case _ where local.contains(key): status = "LOCAL"
            case (nil, _): status = "ONLY_THERE"
            case (_, nil): status = "ONLY_HERE"
            case (let a?, let b?): status = Promotion.sameParameter(a, in: here, b, in: there) ? "SAME" : "DIFFERENT"
            }
            return .object([
                "key": .string(key), "status": .string(status),
                "here": mine[key].map { .object($0.jsonObject) } ?? .null,
                "there": theirs[key].map { .object($0.jsonObject) } ?? .null,
            ])
        }
        let hereConditions = Dictionary(
            here.conditions.map { ($0.name, $0.expression) }, uniquingKeysWith: { a, _ in a })
        let thereConditions = Dictionary(
            there.conditions.map { ($0.name, $0.expression) }, uniquingKeysWith: { a, _ in a })
        let names = here.conditions.map(\.name) + there.conditions.map(\.name).filter { hereConditions[$0] == nil }
        let conditions = names.map { name -> JSONValue in
            let status =
                switch (hereConditions[name], thereConditions[name]) {
                case (nil, _): "ONLY_THERE"
                case (_, nil): "ONLY_HERE"
                case (let a?, let b?): a == b ? "SAME" : "DIFFERENT"
                }
            return .object([
                "name": .string(name), "status": .string(status),
                "hereExpression": hereConditions[name].map(JSONValue.string) ?? .null,
                "thereExpression": thereConditions[name].map(JSONValue.string) ?? .null,
            ])
        }
        return ["parameters": .array(parameters), "conditions": .array(conditions)]
    }
}
