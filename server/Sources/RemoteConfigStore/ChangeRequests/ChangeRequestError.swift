import Foundation

/// Why a change request action was refused.
public enum ChangeRequestError: Error, Equatable {
    /// The action does not apply to a request in `state`.
    case wrongState(id: Int64, state: ChangeRequest.State, action: String)
    /// The author tried to approve their own request.
    case selfApproval(id: Int64)
    /// The approving key stands for the author: minted by the author's key after the request was opened, or
    /// bearing the author's display name. `why` says which, in a clause.
    case selfApprovalByProxy(id: Int64, why: String)
    /// This key approved the request already.
    case alreadyApproved(id: Int64)
    /// Only the author or an admin may cancel.
    case notAuthor(id: Int64)
    /// The project requires approval and the request does not have enough.
    case notApproved(id: Int64, approvals: Int, required: Int)
    /// Another version was published after the request's base (publish with force to go ahead).
    case baseChanged(id: Int64, base: Int64, latest: Int64)
}
