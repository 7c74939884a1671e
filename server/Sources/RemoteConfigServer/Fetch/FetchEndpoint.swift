import Foundation
import HTTPTypes
import Logging
import NIOCore
import RemoteConfigCore
import RemoteConfigStore

/// The client calls, the hot path: `remoteConfig:fetch` and the OFREP evaluations. The client key from
/// memory, the caller's answer from the template's remembered answers, no database. Most calls are
/// answered without waiting (`immediateReply`); the rest (a key this server has not seen, a template at the
/// limits) need `reply`.
final class FetchEndpoint: Sendable {
    let published: PublishedTemplates
    let clientKeys: ClientKeys
    let metrics: ServerMetrics
    /// nil: no limit (the default).
    let rateLimiter: FetchRateLimiter?
    /// Where evaluations at the limits run.
    let heavyWork: HeavyWork
    /// Which web origins may call from a browser (the front adds the headers; the router's middleware too).
    let cors: CORSPolicy
    /// Counts every answer for insights, in memory (see `InsightsRecorder`).
    let insights: InsightsRecorder
    /// Where errors an operator must see are logged (`APIError(mapping:)`).
    let logger: Logger

    init(
        published: PublishedTemplates, clientKeys: ClientKeys, metrics: ServerMetrics, rateLimiter: FetchRateLimiter?,
        heavyWork: HeavyWork, cors: CORSPolicy = .none,
        // Off, it never samples: no key is ever used.
        insights: InsightsRecorder = InsightsRecorder(
            enabled: false, sampleSize: 0, sampleKey: SipHashKey(k0: 0, k1: 0)),
        logger: Logger = Logger(label: "remote-config")
    ) {
        self.logger = logger
        self.published = published
        self.clientKeys = clientKeys
        self.metrics = metrics
        self.rateLimiter = rateLimiter
        self.heavyWork = heavyWork
        self.cors = cors
        self.insights = insights
    }

    /// Request bodies longer than this are read on the heavy-work threads: an SDK's body is a few hundred
    /// bytes, and reading a 1 MiB one (strings of escapes, say) would hold the event loop and every other
    /// connection on it for milliseconds.
    static let inlineBodyLimit = 16 * 1024

    /// What is left to do after the part that never waits.
    private enum Step {
        case done(FetchReply)
        case lookUpKey(secret: String)
        /// Evaluating this caller may take a while: on the heavy-work threads.
        case evaluateOffLoop(@Sendable () throws -> FetchReply)
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
                guard let key = try await clientKeys.lookup(secret: secret) else { throw ClientAuth.invalidKey }
                step = try afterKey(key, secret: secret, call)
            }
            if case .evaluateOffLoop(let work) = step {
                step = .done(try await heavyWork.run(work))
            }
        } catch {
            // Mapped as every route maps errors: a client that left gets nginx's 499 for the log (and nothing
            // sent), the database down 503, an error nobody expected 500.
            step = .done(Self.reply(APIError(mapping: error, logger: logger, metrics: metrics), route: call.route))
        }
        guard case .done(let reply) = step else { preconditionFailure("every step ends in a reply") }
        return reply
    }

    private func firstStep(_ call: FetchCall, keyMemo: inout ClientKeys.Memo?) -> Step {
        do {
            try QueryParameters.check(call.query, allowed: call.route.kind.queryParameters)
            guard let secret = Self.secret(of: call), !secret.isEmpty else {
                switch call.route {
                case .fetch: throw ClientAuth.missingKey
                case .ofrepFlags, .ofrepFlag: throw ClientAuth.missingOFREPKey
                }
            }
            switch clientKeys.cached(secret: secret, memo: &keyMemo) {
            case .known(let key): return try afterKey(key, secret: secret, call)
            case .unknown: throw ClientAuth.invalidKey
            case .notCached: return .lookUpKey(secret: secret)
            }
        } catch {
            return .done(Self.reply(APIError(mapping: error, logger: logger, metrics: metrics), route: call.route))
        }
    }

    /// The client key of a call (`ClientAuth.secret`): a fetch takes no bearer token, OFREP calls do.
    private static func secret(of call: FetchCall) -> String? {
        let bearer: String? =
            switch call.route {
            case .fetch: nil
            case .ofrepFlags, .ofrepFlag: call.bearerToken
            }
        return ClientAuth.secret(
            header: call.apiKeyHeader, bearer: bearer, query: QueryParameters.value(of: "key", in: call.query))
    }

    private func afterKey(_ key: ClientKeys.Key, secret: String, _ call: FetchCall) throws -> Step {
        guard key.role == .client else { throw ClientAuth.notClientKey }
        guard let project = key.project else { throw APIError.permissionDenied("this key belongs to no project") }
        if case .fetch(let path) = call.route, !project.utf8.elementsEqual(path.utf8) {
            throw ClientAuth.otherProject
        }
        if let rateLimiter, let wait = rateLimiter.admit(key: key.id) {
            throw APIError(
                .tooManyRequests, "this client key is over its fetch rate limit; retry after \(wait) s",
                headers: [.retryAfter: String(wait)])
        }
        let now = Date()
        guard case .fetch = call.route else {
            let evaluation = OFREPEvaluation(call: call, project: project, secret: secret)
            return ofrepStep(evaluation, answers: published.entry(project)?.ofrep ?? .nothingPublished, now: now)
        }
        let answers = published.entry(project)?.answers
        // Every answer is counted here, where it is decided.
        if call.body.readableBytes > Self.inlineBodyLimit {
            // Reading a long body takes long enough to matter to every other connection of this event loop.
            return .evaluateOffLoop { [self] in
                let context = try FetchRequest.context(from: call.body.readableBytesView, now: now)
                let answer = answers?.answer(for: context) ?? FetchAnswers.noTemplate
                insights.record(
                    project: project, context: context, now: now, tally: answer.tally,
                    signalsRead: answers?.compiled.inputs.customSignalKeys ?? [])
                return reply(answer, call)
            }
        }
        let context = try FetchRequest.context(from: call.body.readableBytesView, now: now)
        // The client key proves the project exists; one this server has not loaded yet has nothing
        // published (a publish would have reached it through NOTIFY or the periodic check).
        guard let answers else {
            insights.record(project: project, context: context, now: now, tally: FetchAnswers.noTemplate.tally)
            return .done(reply(FetchAnswers.noTemplate, call))
        }
        if answers.isHeavy {
            return .evaluateOffLoop { [self] in
                let answer = answers.answer(for: context)
                insights.record(
                    project: project, context: context, now: now, tally: answer.tally,
                    signalsRead: answers.compiled.inputs.customSignalKeys)
                return reply(answer, call)
            }
        }
        let answer = answers.answer(for: context)
        insights.record(
            project: project, context: context, now: now, tally: answer.tally,
            signalsRead: answers.compiled.inputs.customSignalKeys)
        return .done(reply(answer, call))
    }

    /// An OFREP evaluation from the evaluations of the caller's template.
    private func ofrepStep(_ evaluation: OFREPEvaluation, answers: OFREPAnswers, now: Date) -> Step {
        if let empty = answers.nothingPublishedAnswer { return .done(evaluation.reply(empty, answers: answers)) }
        if evaluation.call.body.readableBytes > Self.inlineBodyLimit {
            return .evaluateOffLoop { [self] in
                do throws(OFREPFailure) {
                    let context = try OFREPRequest.context(from: evaluation.call.body.readableBytesView, now: now)
                    let answer = answers.answer(for: context)
                    count(evaluation, answer, answers, context, now)
                    return evaluation.reply(answer, answers: answers)
                } catch {
                    return evaluation.reply(error)
                }
            }
        }
        let context: FetchContext
        do {
            context = try OFREPRequest.context(from: evaluation.call.body.readableBytesView, now: now)
        } catch {
            return .done(evaluation.reply(error))
        }
        if answers.isHeavy {
            return .evaluateOffLoop { [self] in
                let answer = answers.answer(for: context)
                count(evaluation, answer, answers, context, now)
                return evaluation.reply(answer, answers: answers)
            }
        }
        let answer = answers.answer(for: context)
        count(evaluation, answer, answers, context, now)
        return .done(evaluation.reply(answer, answers: answers))
    }

    /// Counts an OFREP answer: a bulk one for every flag, a single one for its flag (none for a flag that
    /// does not exist, which is answered with an error).
    private func count(
        _ evaluation: OFREPEvaluation, _ answer: OFREPAnswers.Answer, _ answers: OFREPAnswers,
        _ context: FetchContext, _ now: Date
    ) {
        guard insights.enabled else { return }
        var position: Int?
        if case .ofrepFlag(let key) = evaluation.call.route {
            guard let found = answers.position(of: key) else { return }
            position = found
        }
        insights.record(
            project: evaluation.project, context: context, now: now, tally: answer.tally, position: position,
            signalsRead: answers.compiled?.inputs.customSignalKeys ?? [])
    }

    private func reply(_ answer: FetchAnswers.Answer, _ call: FetchCall) -> FetchReply {
        if let ifNoneMatch = call.ifNoneMatch, FetchAnswers.matches(ifNoneMatch, answer.etag) {
            metrics.fetch(state: answer.state.rawValue, notModified: true)
            return FetchReply(status: .notModified, answer: answer, renderedHead: answer.notModifiedHead)
        }
        metrics.fetch(state: answer.state.rawValue, notModified: false)
        if call.acceptsGzip, let gzipBody = answer.gzipBody {
            return FetchReply(status: .ok, body: gzipBody, answer: answer, renderedHead: answer.gzipOkHead, gzip: true)
        }
        return FetchReply(status: .ok, body: answer.body, answer: answer, renderedHead: answer.okHead)
    }

    /// An error in the API's shape, or for an OFREP call in OFREP's (see `OFREPEvaluation.reply(_:)`).
    static func reply(_ error: APIError, route: ClientRoute) -> FetchReply {
        switch route {
        case .fetch: return reply(error)
        case .ofrepFlags, .ofrepFlag: return OFREPEvaluation.reply(error, route: route)
        }
    }

    /// An error in the API's shape.
    static func reply(_ error: APIError) -> FetchReply {
        var headers = error.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return FetchReply(status: error.status, fields: headers, body: error.encodedBody())
    }
}
