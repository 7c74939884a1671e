import RemoteConfigAPI
import RemoteConfigStore

/// The API's answer to each error type the store throws, case by case: what `APIError(mapping:)` uses.
extension APIError {
    /// The answer to a store error; the fetch path, which has no middleware, uses it too.
    init(_ error: StoreError) {
        switch error {
        case .unavailable:
            self = .unavailable("the database is unavailable; retry shortly")
        case .timedOut(let limit):
            self = .deadlineExceeded(
                "the database is up, but this call took longer than its limit of \(limit); retry shortly")
        case .alreadyExists(let what, let field):
            self = .alreadyExists("\(what) already exists")
            details = field.map { [ErrorDetail(field: $0.name, reason: $0.reason)] } ?? []
        case .notFound(let what, nil):
            self = .notFound("\(what) not found")
        case .notFound(let what, let field?):
            // Something the request body refers to, rather than the resource the path names.
            self = .notFound("\(what) does not exist")
            details = [ErrorDetail(field: field.name, reason: field.reason)]
        }
    }

    /// The answer to a `promotesTo` the store refused.
    init(_ error: ProjectLinkError) {
        switch error {
        case .notFound(let target):
            self = .invalidField(
                "promotesTo", reason: "PROJECT_NOT_FOUND", "promotesTo: project \(target) does not exist")
        case .cycle(let chain):
            self = .invalidField(
                "promotesTo", reason: "PROMOTION_CYCLE",
                "promotesTo would close a cycle: \(chain.joined(separator: " → "))")
        }
    }

    /// The answer to a conflict a template or draft write found under the project's lock.
    init(_ error: TemplateStoreError) {
        switch error {
        case .stale: self = TemplateHTTP.stale("published template")
        case .staleDraft: self = TemplateHTTP.stale("draft")
        case .baseChanged(let base, let latest):
            self = .aborted(
                "version \(latest) was published after this draft's base version \(base); review the draft, or publish with force=true",
                [ErrorDetail(field: "baseVersionNumber", reason: "BASE_VERSION_CHANGED")])
        case .approvalRequired(let project):
            self = APIError(
                .forbidden,
                "project \(project) requires approval: publish through an approved change request (POST …/remoteConfig/changeRequests)",
                details: [ErrorDetail(field: "requireApproval", reason: "APPROVAL_REQUIRED")])
        case .invalid(let issues):
            self = TemplateHTTP.apiError(.invalid(issues))
        }
    }

    /// The answer to a change request action that its state, its author or the project's settings refuse.
    init(_ error: ChangeRequestError) {
        switch error {
        case .wrongState(let id, let state, let action):
            self = .aborted(
                "change request \(id) is \(state.rawValue); it can no longer be \(Self.pastTense(action))",
                [ErrorDetail(field: "state", reason: "INVALID_STATE")])
        case .selfApproval(let id):
            self = APIError(
                .forbidden,
                "the author of change request \(id) cannot approve it, through any session or key; another person must",
                details: [ErrorDetail(field: "author", reason: "SELF_APPROVAL")])
        case .selfApprovalByProxy(let id, let why):
            self = APIError(
                .forbidden, "this key cannot approve change request \(id): \(why); another person's key must",
                details: [ErrorDetail(field: "author", reason: "SELF_APPROVAL")])
        case .alreadyApproved(let id):
            self = .alreadyExists("this key already approved change request \(id)")
            details = [ErrorDetail(field: "approvals", reason: "ALREADY_APPROVED")]
        case .notAuthor(let id):
            self = APIError(
                .forbidden, "only the author of change request \(id), or an admin, may cancel it",
                details: [ErrorDetail(field: "author", reason: "NOT_AUTHOR")])
        case .notApproved(let id, let approvals, let required):
            self = APIError(
                .forbidden,
                "change request \(id) has \(approvals) of the \(required) approvals the project requires before it is published",
                details: [ErrorDetail(field: "approvals", reason: "APPROVAL_REQUIRED")])
        case .baseChanged(let id, let base, let latest):
            self = .aborted(
                "version \(latest) was published after change request \(id)'s base version \(base); review it, or publish with force=true",
                [ErrorDetail(field: "baseVersionNumber", reason: "BASE_VERSION_CHANGED")])
        }
    }

    /// The answer to a rollout action its state, its parameter or its template refuses.
    init(_ error: RolloutError) {
        switch error {
        case .wrongState(let id, let state, let action):
            self = .aborted(
                "\(RemoteConfigStore.Rollout.name(id)) is \(state.rawValue); it cannot \(action) now",
                [ErrorDetail(field: "state", reason: "INVALID_STATE")])
        case .parameterNotFound(let parameter):
            self = .invalidField(
                "parameter", reason: "PARAMETER_NOT_FOUND", "the published template has no parameter \(parameter)")
        case .parameterBusy(let parameter, let other):
            self = APIError(
                .conflict,
                "\(RemoteConfigStore.Rollout.name(other)) is still rolling out \(parameter); halt or complete it first",
                details: [ErrorDetail(field: "parameter", reason: "ROLLOUT_IN_PROGRESS")])
        case .invalidTemplate(let issues):
            self = TemplateHTTP.apiError(.invalid(issues))
        case .conditionExists(let name):
            self = .alreadyExists(
                "the published template already uses the condition \(name), which this rollout would own; remove it, and every value for it, first"
            )
            details = [ErrorDetail(field: "conditionName", reason: "CONDITION_EXISTS")]
        case .badHaltToken:
            self = .unauthenticated("this halt token does not open this rollout")
        }
    }

    /// 412 for a write whose `If-Match` named a revision that is no longer the current one (as for a stale
    /// template ETag).
    init(_ error: StaleRevision) {
        self = TemplateHTTP.stale(error.what)
    }

    /// 400 for a webhook over the project's limit.
    init(_ error: WebhookLimitReached) {
        self = APIError(
            .badRequest,
            "\(error.project) has \(error.limit) webhooks, the most a project may have; delete one to add another",
            details: [ErrorDetail(field: "webhooks", reason: "LIMIT_EXCEEDED")])
    }

    /// 409 for a store sync's write after another server took its link over (no request makes one; a sync
    /// that sees it stops).
    init(_ error: StoreLinkError) {
        switch error {
        case .claimLost:
            self = APIError(
                .conflict, "another server is syncing this store link now",
                details: [ErrorDetail(field: "storeSync", reason: "CLAIM_LOST")])
        }
    }

    private static func pastTense(_ action: String) -> String {
        switch action {
        case "approve": "approved"
        case "reject": "rejected"
        case "cancel": "cancelled"
        default: "published"
        }
    }
}
