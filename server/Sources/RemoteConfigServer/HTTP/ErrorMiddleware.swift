import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RemoteConfigStore

/// Turns every failure into the API's error shape, answers 405 with `Allow` for a known path, tags
/// responses with the request id and writes one access-log line per request (path only: a `?key=`
/// query never reaches the log).
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let routes: RouteTable
    let metrics: ServerMetrics
    let accessLog: AccessLog

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        // Our id (random, or a proxy's well-formed one) rather than Hummingbird's counter, as on the fetch path.
        let requestID = RequestID.make(incoming: request.headers[.requestID])
        var context = context
        context.logger[metadataKey: "hb.request.id"] = .string(requestID)
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let apiError = map(error, request: request, context: context)
            response = try apiError.response(from: request, context: context)
        }
        response.headers[.requestID] = requestID
        let duration = ContinuousClock.now - start
        let status = Int(response.status.code)
        metrics.request(
            route: context.endpointPath ?? "unmatched", method: request.method.rawValue, status: status,
            duration: duration)
        accessLog.record(
            method: request.method.rawValue, path: request.uri.path, status: status, duration: duration,
            requestID: requestID)
        return response
    }

    private func map(_ error: any Error, request: Request, context: Context) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as HTTPError:
            switch error.status {
            case .notFound:
                let allowed = routes.methods(matching: request.uri.path)
                if !allowed.isEmpty { return .methodNotAllowed(request, allowed: allowed) }
                return .notFound("no route \(request.method) \(request.uri.path)")
            case .contentTooLarge:
                return APIError(.contentTooLarge, "the request body is larger than 1 MiB")
            default:
                return APIError(error.status, error.body ?? error.status.reasonPhrase)
            }
        case is NIOTooManyBytesError:
            return APIError(.contentTooLarge, "the request body is larger than 1 MiB")
        case let error as StoreError:
            switch error {
            case .unavailable(let reason):
                metrics.databaseError()
                context.logger.warning("database unavailable: \(reason)")
            case .timedOut:
                context.logger.warning("\(error)")
            case .alreadyExists, .notFound:
                break
            }
            return APIError(error)
        case let error as TemplateStoreError:
            return APIError(error)
        case let error as ChangeRequestError:
            return APIError(error)
        case _ where ClientHangUp.matches(error):
            // The client's doing, not ours: no error in the log, no 500 in the metrics.
            context.logger.debug("the client hung up before its request was read: \(error)")
            return ClientHangUp.error
        default:
            context.logger.error("unhandled error: \(String(reflecting: error))")
            return APIError(.internalServerError, "internal error")
        }
    }
}

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
                .forbidden, "the author of change request \(id) cannot approve it; another key must",
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

extension HTTPField.Name {
    static let requestID = Self("X-Request-Id")!
}
