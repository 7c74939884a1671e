import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import RemoteConfigAPI
import RemoteConfigStore

extension APIError {
    /// The answer to any error that handling a request threw, whichever way the request came in (the router's
    /// `ErrorMiddleware`, `FetchEndpoint` for fetch and OFREP, `ProtocolErrorResponder`): the one place a
    /// domain error becomes an API error. `logger` and `metrics` record what an operator must see (the
    /// database down or slow, an error nobody expected); a client that hung up is its own doing and only
    /// logged at `debug`.
    init(mapping error: any Error, logger: Logger? = nil, metrics: ServerMetrics? = nil) {
        switch error {
        case let error as APIError:
            self = error
        case _ where ClientHangUp.matches(error):
            // The client's doing, not ours: no error in the log, no 500 in the metrics.
            logger?.debug("the client hung up before its answer: \(error)")
            self = ClientHangUp.error
        case let error as HTTPError:
            self =
                error.status == .contentTooLarge
                ? Self.bodyTooLarge : APIError(error.status, error.body ?? error.status.reasonPhrase)
        case is NIOTooManyBytesError:
            self = Self.bodyTooLarge
        case let error as HTTPParserError:
            self =
                error == .headerOverflow
                ? APIError(
                    .requestHeaderFieldsTooLarge, "the request head is larger than the server accepts (80 KiB)",
                    details: [ErrorDetail(field: "headers", reason: "HEADERS_TOO_LARGE")])
                : .invalidField("request", reason: "MALFORMED_HTTP", "the request is not valid HTTP/1.1")
        case let error as StoreError:
            switch error {
            case .unavailable(let reason):
                metrics?.databaseError()
                logger?.warning("database unavailable: \(reason)")
            case .timedOut:
                logger?.warning("\(error)")
            case .alreadyExists, .notFound:
                break
            }
            self = APIError(error)
        case let error as TemplateStoreError:
            self = APIError(error)
        case let error as ChangeRequestError:
            self = APIError(error)
        case let error as RolloutError:
            // Also through the change request that carries a rollout's start or completion.
            self = RolloutWire.apiError(error)
        case let problems as FieldProblems:
            self = APIError(problems)
        case is NIOThreadPoolError.ThreadPoolInactive:
            // The heavy-work threads stop last, with the server: only a request in flight at a stop sees this.
            self = .unavailable("the server is shutting down; retry shortly")
        default:
            logger?.error("unhandled error: \(String(reflecting: error))")
            self = APIError(.internalServerError, "internal error")
        }
    }

    /// 413 for a body over the API's limit (NIO's collector and Hummingbird say so in their own ways).
    static var bodyTooLarge: APIError { APIError(.contentTooLarge, "the request body is larger than 1 MiB") }

    /// 400 listing every field of a body at fault (a store link), each with its sentence.
    init(_ problems: FieldProblems) {
        self = .invalidArgument(
            problems.message,
            problems.problems.map { ErrorDetail(field: $0.field, reason: $0.reason, message: $0.message) })
    }

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

    private static func pastTense(_ action: String) -> String {
        switch action {
        case "approve": "approved"
        case "reject": "rejected"
        case "cancel": "cancelled"
        default: "published"
        }
    }
}
