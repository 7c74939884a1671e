import Foundation
import RemoteConfigCore

/// Why a conditional write was refused.
public enum TemplateStoreError: Error, Equatable {
    /// The caller's ETag of the published template is stale: the current version is another.
    case stale(current: Int64)
    /// The caller's ETag of the draft is stale: the current draft revision (0: none) is another.
    case staleDraft(current: Int64)
    /// A draft's base is no longer the latest version.
    case baseChanged(base: Int64, latest: Int64)
    /// The project requires every publish to go through an approved change request.
    case approvalRequired(project: String)
    /// The template breaks a rule that needs the project's state to check (a `rollout_…` condition that no
    /// live rollout owns): every problem, each naming its field of the template.
    case invalid([ValidationIssue])
}
