import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `POST …/changeRequests` checked beyond its types: the description's length, a version number, one source, a time.
struct CreateChangeRequestBody {
    let description: String
    let template: JSONValue?
    let rollbackSource: Int64?
    let publishTime: Date?

    init(_ body: CreateChangeRequestRequest) throws {
        description = body.description ?? ""
        try TextLimits.check(description, field: "description", limit: TextLimits.description)
        template = body.template
        rollbackSource = try TemplateHTTP.versionNumber(body.rollbackSource, field: "rollbackSource")
        if template != nil, rollbackSource != nil {
            throw APIError.invalidField(
                "rollbackSource", reason: "CONFLICTING_FIELDS", "send either template or rollbackSource, not both")
        }
        publishTime = try TemplatesController.time(body.publishTime, field: "publishTime")
    }
}
