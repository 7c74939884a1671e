import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// A change request as the API writes it, and the checks of the bodies its routes read.
enum ChangeRequestJSON {
    /// The stored request as `RemoteConfigAPI.ChangeRequest`; `template` only when the store read it.
    static func body(_ request: RemoteConfigStore.ChangeRequest) throws -> RemoteConfigAPI.ChangeRequest {
        var body = RemoteConfigAPI.ChangeRequest(
            name: RemoteConfigStore.ChangeRequest.name(request.id), state: request.state.rawValue,
            description: request.description,
            author: actor(request.author),
            baseVersionNumber: String(request.baseVersion), createTime: request.createTime,
            updateTime: request.updateTime, publishTime: request.publishTime,
            template: try request.templateJSON.map { try JSONValue(parsing: $0) },
            rollbackSource: request.rollbackSource.map(String.init), autoApproved: request.autoApproved ? true : nil,
            approvals: request.approvals.map { approval in
                ChangeRequestReview(
                    key: approval.keyId.map { "apiKeys/\($0)" }, displayName: approval.displayName,
                    time: approval.time, comment: approval.comment, user: approval.userId.map { "users/\($0)" },
                    email: approval.email)
            },
            publishedVersionNumber: request.publishedVersion.map(String.init))
        body.promotedFrom = request.promotedFrom.map {
            .init(project: $0.project, versionNumber: String($0.versionNumber))
        }
        if let closure = request.closure {
            let review = ChangeRequestReview(
                key: closure.keyId.map { "apiKeys/\($0)" }, displayName: closure.displayName, time: closure.time,
                comment: request.state == .rejected ? closure.comment : nil)
            if request.state == .rejected { body.rejection = review } else { body.cancellation = review }
        }
        return body
    }

    /// `{"key": "apiKeys/<id>", "displayName", "user", "email"}`; `key` is null for the server's own actions.
    static func actor(keyId: String?, displayName: String) -> ActingKey {
        ActingKey(key: keyId.map { "apiKeys/\($0)" }, displayName: displayName)
    }

    /// An actor with the person behind it.
    static func actor(_ actor: AuditActor) -> ActingKey {
        ActingKey(
            key: actor.keyId.map { "apiKeys/\($0)" }, displayName: actor.displayName,
            user: actor.userId.map { "users/\($0)" }, email: actor.email)
    }

    /// A review's comment, checked for length.
    static func comment(_ body: ReviewRequest) throws -> String {
        let comment = body.comment ?? ""
        try TextLimits.check(comment, field: "comment", limit: TextLimits.comment)
        return comment
    }
}
