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
    /// domain error becomes an API error (each store error type's answer is in `APIError+StoreErrors.swift`;
    /// controllers throw store errors as they come, never wrapping a call to translate them). `logger` and `metrics` record what an operator must see (the
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
            self = APIError(error)
        case let error as StaleRevision:
            self = APIError(error)
        case let error as WebhookLimitReached:
            self = APIError(error)
        case let error as StoreLinkError:
            self = APIError(error)
        case let error as ProjectLinkError:
            self = APIError(error)
        case let error as SealedSecretError:
            // The key was rotated while this server ran, or a sealed value was damaged: an operator must act.
            logger?.error("\(error)")
            self = .unavailable(
                "this server's secrets key does not open the database's secrets; restart it with the current key")
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

}
