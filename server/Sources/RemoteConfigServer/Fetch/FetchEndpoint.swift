import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigCore
import RemoteConfigStore

/// One `remoteConfig:fetch` request, as either way in (the event-loop fast path or the router) hands it over.
struct FetchCall: Sendable {
    /// The `{p}` of the path.
    var project: Substring
    /// `X-API-Key`.
    var apiKeyHeader: String?
    /// The query string (without `?`), which may carry `key=`.
    var query: Substring?
    var ifNoneMatch: String?
    var body: ByteBuffer
}

/// What to answer a fetch: status, headers and body (none for a 304).
struct FetchReply: Sendable {
    var status: HTTPResponse.Status
    /// The headers of an error reply; an answer's come from `answer`.
    var errorHeaders: HTTPFields = [:]
    var body: ByteBuffer?
    /// The answer, for a 200 or 304: its state (for `rc_fetches_total`) and its pre-rendered head.
    var answer: FetchAnswers.Answer?

    /// The response headers (without `Content-Length`).
    var headers: HTTPFields { answer?.headers(notModified: status == .notModified) ?? errorHeaders }

    /// The status line and headers as they go on the wire, when rendered in advance (an answer's).
    var renderedHead: ByteBuffer? {
        guard let answer else { return nil }
        return status == .notModified ? answer.notModifiedHead : answer.okHead
    }
}

/// `remoteConfig:fetch`, the hot path: the client key from memory, the caller's answer from the
/// template's remembered answers, no database. Most calls are answered without waiting
/// (`immediateReply`); the rest (a key this server has not seen, a template at the limits) need `reply`.
final class FetchEndpoint: Sendable {
    /// The route as metrics and the access log name it.
    static let route = "/v1/projects/{p}/remoteConfig:fetch"
    /// The query parameters fetch takes.
    static let queryParameters: Set<String> = ["key"]

    let published: PublishedTemplates
    let clientKeys: ClientKeys
    let metrics: ServerMetrics
    /// nil: no limit (the default).
    let rateLimiter: FetchRateLimiter?

    init(published: PublishedTemplates, clientKeys: ClientKeys, metrics: ServerMetrics, rateLimiter: FetchRateLimiter?)
    {
        self.published = published
        self.clientKeys = clientKeys
        self.metrics = metrics
        self.rateLimiter = rateLimiter
    }

    /// What is left to do after the part that never waits.
    private enum Step {
        case done(FetchReply)
        case lookUpKey(secret: String)
        case evaluateOffLoop(FetchAnswers, FetchContext, ByteBuffer)
    }

    /// The reply, when it can be given without waiting; nil when `reply(_:)` must be awaited. `keyMemo` is
    /// the connection's last key (see `ClientKeys.Memo`).
    func immediateReply(_ call: FetchCall, keyMemo: inout ClientKeys.Memo?) -> FetchReply? {
        if case .done(let reply) = firstStep(call, keyMemo: &keyMemo) { return reply }
        return nil
    }

    /// The reply, waiting for the database or the heavy-work threads where needed.
    func reply(_ call: FetchCall) async -> FetchReply {
        var memo: ClientKeys.Memo?
        var step = firstStep(call, keyMemo: &memo)
        do {
            if case .lookUpKey(let secret) = step {
                guard let key = try await clientKeys.lookup(secret: secret) else {
                    throw APIError.unauthenticated("the client key is not valid or was revoked")
                }
                step = try afterKey(key, call)
            }
            if case .evaluateOffLoop(let answers, let context, let body) = step {
                let answer = try await HeavyWork.run { answers.answer(for: context) }
                answers.remember(body: body, answer: answer, now: context.now)
                step = .done(reply(answer, ifNoneMatch: call.ifNoneMatch))
            }
        } catch let error as APIError {
            step = .done(Self.reply(error))
        } catch is CancellationError {
            // The client left before its answer was ready: nothing to send; nginx's 499 for the log.
            step = .done(FetchReply(status: .init(code: 499, reasonPhrase: "Client Closed Request")))
        } catch let error as StoreError {
            // Mapped as every route maps it (503, or 504 for a slow call); no internal detail in the answer.
            if case .unavailable = error { metrics.databaseError() }
            step = .done(Self.reply(APIError(error)))
        } catch {
            step = .done(Self.reply(.unavailable("the server is shutting down; retry shortly")))
        }
        guard case .done(let reply) = step else { preconditionFailure("every step ends in a reply") }
        return reply
    }

    private func firstStep(_ call: FetchCall, keyMemo: inout ClientKeys.Memo?) -> Step {
        do {
            try QueryParameters.check(call.query, allowed: Self.queryParameters)
            guard let secret = call.apiKeyHeader ?? QueryParameters.value(of: "key", in: call.query), !secret.isEmpty
            else {
                throw APIError.unauthenticated("missing client key: send X-API-Key or ?key=")
            }
            switch clientKeys.cached(secret: secret, memo: &keyMemo) {
            case .known(let key): return try afterKey(key, call)
            case .unknown: throw APIError.unauthenticated("the client key is not valid or was revoked")
            case .notCached: return .lookUpKey(secret: secret)
            }
        } catch let error as APIError {
            return .done(Self.reply(error))
        } catch {
            return .done(Self.reply(APIError(.internalServerError, "internal error")))
        }
    }

    private func afterKey(_ key: ClientKeys.Key, _ call: FetchCall) throws -> Step {
        guard key.role == .client else {
            throw APIError.permissionDenied("this route takes a client key; admin keys go in Authorization")
        }
        guard let project = key.project, project.utf8.elementsEqual(call.project.utf8) else {
            throw APIError.permissionDenied("the client key belongs to another project")
        }
        if let rateLimiter, let wait = rateLimiter.admit(key: key.id) {
            throw APIError(
                .tooManyRequests, "this client key is over its fetch rate limit; retry after \(wait) s",
                headers: [.retryAfter: String(wait)])
        }
        let now = Date()
        let answers = published.entry(project)?.answers
        if let remembered = answers?.rememberedAnswer(body: call.body, now: now) {
            return .done(reply(remembered, ifNoneMatch: call.ifNoneMatch))
        }
        let context = try FetchRequest.context(from: call.body.readableBytesView, now: now)
        // The client key proves the project exists; one this server has not loaded yet has nothing
        // published (a publish would have reached it through NOTIFY or the periodic check).
        guard let answers else {
            return .done(reply(FetchAnswers.noTemplate, ifNoneMatch: call.ifNoneMatch))
        }
        if answers.isHeavy { return .evaluateOffLoop(answers, context, call.body) }
        let answer = answers.answer(for: context)
        answers.remember(body: call.body, answer: answer, now: now)
        return .done(reply(answer, ifNoneMatch: call.ifNoneMatch))
    }

    private func reply(_ answer: FetchAnswers.Answer, ifNoneMatch: String?) -> FetchReply {
        if let ifNoneMatch, FetchAnswers.matches(ifNoneMatch, answer.etag) {
            metrics.fetch(state: answer.state.rawValue, notModified: true)
            return FetchReply(status: .notModified, body: nil, answer: answer)
        }
        metrics.fetch(state: answer.state.rawValue, notModified: false)
        return FetchReply(status: .ok, body: answer.body, answer: answer)
    }

    /// An error in the API's shape.
    static func reply(_ error: APIError) -> FetchReply {
        var headers = error.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return FetchReply(status: error.status, errorHeaders: headers, body: error.encodedBody())
    }
}
