import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore

/// The Google API status name of an error body (`error.status`).
public enum ErrorStatus: String, Sendable, CaseIterable {
    case invalidArgument = "INVALID_ARGUMENT"
    case unauthenticated = "UNAUTHENTICATED"
    case permissionDenied = "PERMISSION_DENIED"
    case notFound = "NOT_FOUND"
    case methodNotAllowed = "METHOD_NOT_ALLOWED"
    case alreadyExists = "ALREADY_EXISTS"
    case aborted = "ABORTED"
    case failedPrecondition = "FAILED_PRECONDITION"
    case payloadTooLarge = "PAYLOAD_TOO_LARGE"
    case preconditionRequired = "PRECONDITION_REQUIRED"
    /// Not a Google API status: a request head over the limit, which NIO's parser refuses.
    case requestHeadersTooLarge = "REQUEST_HEADERS_TOO_LARGE"
    case resourceExhausted = "RESOURCE_EXHAUSTED"
    case cancelled = "CANCELLED"
    case unavailable = "UNAVAILABLE"
    case deadlineExceeded = "DEADLINE_EXCEEDED"
    case `internal` = "INTERNAL"
    case unknown = "UNKNOWN"

    /// The usual name of an HTTP status; 409 is `ALREADY_EXISTS` unless the error says `ABORTED`.
    public init(_ status: HTTPResponse.Status) {
        self =
            switch status.code {
            case 400: .invalidArgument
            case 401: .unauthenticated
            case 403: .permissionDenied
            case 404: .notFound
            case 405: .methodNotAllowed
            case 409: .alreadyExists
            case 412: .failedPrecondition
            case 413: .payloadTooLarge
            case 428: .preconditionRequired
            case 429: .resourceExhausted
            case 431: .requestHeadersTooLarge
            case 499: .cancelled
            case 503: .unavailable
            case 504: .deadlineExceeded
            default: status.code >= 500 ? .internal : .unknown
            }
    }
}
