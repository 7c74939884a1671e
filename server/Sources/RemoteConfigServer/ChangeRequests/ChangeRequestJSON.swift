import Foundation
import RemoteConfigCore
import RemoteConfigStore

/// A change request as the API writes it.
enum ChangeRequestJSON {
    /// `{"name", "state", "description", "author", "baseVersionNumber", "createTime", "updateTime",
    /// "publishTime", "template", "approvals", "publishedVersionNumber", …}`; `template` only when read.
    static func object(_ request: ChangeRequest) throws -> JSONObject {
        var object: JSONObject = [
            "name": .string(ChangeRequest.name(request.id)),
            "state": .string(request.state.rawValue),
            "description": .string(request.description),
            "author": .object(actor(keyId: request.author.keyId, displayName: request.author.displayName)),
            "baseVersionNumber": .string(String(request.baseVersion)),
            "createTime": .string(JSONResponse.timestamp(request.createTime)),
            "updateTime": .string(JSONResponse.timestamp(request.updateTime)),
            "publishTime": request.publishTime.map { .string(JSONResponse.timestamp($0)) } ?? .null,
        ]
        if let json = request.templateJSON {
            object["template"] = try JSONValue(parsing: json)
        }
        if let source = request.rollbackSource { object["rollbackSource"] = .string(String(source)) }
        if request.autoApproved { object["autoApproved"] = .bool(true) }
        object["approvals"] = .array(
            request.approvals.map { approval in
                var entry = actor(keyId: approval.keyId, displayName: approval.displayName)
                entry["time"] = .string(JSONResponse.timestamp(approval.time))
                entry["comment"] = .string(approval.comment)
                return .object(entry)
            })
        object["publishedVersionNumber"] = request.publishedVersion.map { .string(String($0)) } ?? .null
        if let closure = request.closure {
            var entry = actor(keyId: closure.keyId, displayName: closure.displayName)
            entry["time"] = .string(JSONResponse.timestamp(closure.time))
            if request.state == .rejected { entry["comment"] = .string(closure.comment) }
            object[request.state == .rejected ? "rejection" : "cancellation"] = .object(entry)
        }
        return object
    }

    /// `{"key": "apiKeys/<id>", "displayName"}`; `key` is null for the server's own actions.
    static func actor(keyId: String?, displayName: String) -> JSONObject {
        ["key": keyId.map { .string("apiKeys/\($0)") } ?? .null, "displayName": .string(displayName)]
    }
}

/// `POST …/changeRequests`: `{"description", "template" | "rollbackSource", "publishTime"}`; no other field.
struct CreateChangeRequestBody: RequestBody {
    let description: String
    let template: JSONValue?
    let rollbackSource: Int64?
    let publishTime: Date?

    init(_ body: JSONBody) throws {
        let known: Set<String> = ["description", "template", "rollbackSource", "publishTime"]
        for key in body.object.keys where !known.contains(key) {
            throw APIError.invalidField(
                key, reason: "UNKNOWN_FIELD",
                "\(key) is not a field of a change request; send description, template or rollbackSource, publishTime")
        }
        description = try body.string("description") ?? ""
        try TextLimits.check(description, field: "description", limit: TextLimits.description)
        switch body.object["template"] {
        case nil, .null?: template = nil
        case .object?: template = body.object["template"]
        default: throw APIError.invalidField("template", reason: "NOT_AN_OBJECT", "template must be an object")
        }
        rollbackSource = try TemplateHTTP.versionNumber(
            try body.stringOrInteger("rollbackSource"), field: "rollbackSource")
        if template != nil, rollbackSource != nil {
            throw APIError.invalidField(
                "rollbackSource", reason: "CONFLICTING_FIELDS", "send either template or rollbackSource, not both")
        }
        publishTime = try TemplatesController.time(try body.string("publishTime"), field: "publishTime")
    }
}

/// `POST …:approve` and `…:reject`: `{"comment"}`, optional.
struct ReviewBody: RequestBody {
    let comment: String

    init(_ body: JSONBody) throws {
        for key in body.object.keys where key != "comment" {
            throw APIError.invalidField(key, reason: "UNKNOWN_FIELD", "\(key) is not a field of a review; send comment")
        }
        comment = try body.string("comment") ?? ""
        try TextLimits.check(comment, field: "comment", limit: TextLimits.comment)
    }
}
