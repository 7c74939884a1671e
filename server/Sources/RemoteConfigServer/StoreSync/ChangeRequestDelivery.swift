import Foundation
import RemoteConfigStore

/// Delivers a sync's change as the project's publish rules ask: published directly, or, when the project
/// requires approval, proposed as a change request by the server itself. With the link's `autoApprove` that
/// request is approved at once and scheduled for now, so every replica's scheduler publishes it within a
/// second (as a `CHANGE_REQUEST` version carrying the sync's description); without it, people approve it.
struct ChangeRequestDelivery: StoreSyncDelivery {
    let projects: ProjectStore
    let changeRequests: ChangeRequestStore
    let fences: SyncFences
    /// Where a change goes when the project requires no approval.
    let publish: PublishDelivery

    func deliver(_ change: StoreSyncChange) async throws -> StoreSyncDelivered {
        let project = change.fence.project
        guard let settings = try await projects.get(project), settings.requireApproval else {
            return try await publish.deliver(change)
        }
        // The same store version must not open a request on every sync while people have not decided on the
        // first one: a request of the server's with this description that is still pending stands for it.
        for pending in try await changeRequests.list(project, ChangeRequestQuery(limit: 100)).items
        where !pending.state.isFinal && pending.author.keyId == nil && pending.description == change.description {
            return .changeRequest(id: String(pending.id))
        }
        // A sync whose lease ran out leaves the proposal to the replica that holds the link now.
        try await fences.checkHeld(change.fence)
        let autoApprove = change.autoApprove
        let request = try await changeRequests.create(
            project,
            ChangeRequestProposal(
                templateJSON: change.prepared.storedJSON, description: change.description,
                baseVersion: change.baseVersion, publishTime: autoApprove ? Date() : nil, autoApproved: autoApprove),
            actor: AuditActor(keyId: nil, displayName: "store sync"))
        return .changeRequest(id: String(request.id))
    }
}
