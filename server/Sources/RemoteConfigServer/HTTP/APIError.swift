import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore

/// Every error the API answers with; mapped to the JSON error shape of API.md in this one place.
public struct APIError: Error, Sendable, HTTPResponseError {
    public var status: HTTPResponse.Status
    /// `error.status` of the body; set apart from `status` because one HTTP status has several (409).
    public var statusName: ErrorStatus
    public var message: String
    public var details: [ErrorDetail]
    public var headers: HTTPFields

    public init(
        _ status: HTTPResponse.Status, _ message: String, details: [ErrorDetail] = [], headers: HTTPFields = [:],
        statusName: ErrorStatus? = nil
    ) {
        self.status = status
        self.statusName = statusName ?? ErrorStatus(status)
        self.message = message
        self.details = details
        self.headers = headers
    }

    /// 400: the request is wrong; `details` say where.
    public static func invalidArgument(_ message: String, _ details: [ErrorDetail] = []) -> APIError {
        APIError(.badRequest, message, details: details)
    }

    /// 400 for one field.
    public static func invalidField(_ field: String, reason: String, _ message: String) -> APIError {
        APIError(.badRequest, message, details: [ErrorDetail(field: field, reason: reason)])
    }

    /// 401 with `WWW-Authenticate: Bearer`: no key, or one that is not valid.
    public static func unauthenticated(_ message: String) -> APIError {
        APIError(.unauthorized, message, headers: [.wwwAuthenticate: "Bearer"])
    }

    /// 403: the key may not do this.
    public static func permissionDenied(_ message: String) -> APIError { APIError(.forbidden, message) }
    /// 404: no such resource.
    public static func notFound(_ message: String) -> APIError { APIError(.notFound, message) }
    /// 409 `ALREADY_EXISTS`.
    public static func alreadyExists(_ message: String) -> APIError { APIError(.conflict, message) }

    /// 405 with `Allow` listing the methods the path serves.
    static func methodNotAllowed(_ request: Request, allowed: [HTTPRequest.Method]) -> APIError {
        var headers = HTTPFields()
        headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
        return APIError(
            .methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path)", headers: headers)
    }

    /// 409 `ABORTED`: the write lost to a concurrent change; reading again and retrying may succeed.
    public static func aborted(_ message: String, _ details: [ErrorDetail] = []) -> APIError {
        APIError(.conflict, message, details: details, statusName: .aborted)
    }

    /// 503 with `Retry-After`, while the database cannot be reached.
    public static func unavailable(_ message: String) -> APIError {
        APIError(.serviceUnavailable, message, headers: [.retryAfter: "2"])
    }

    /// 504 `DEADLINE_EXCEEDED` with `Retry-After`: the database answers, but the call took longer than its limit.
    public static func deadlineExceeded(_ message: String) -> APIError {
        APIError(.gatewayTimeout, message, headers: [.retryAfter: "2"])
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: encodedBody()))
    }

    /// The JSON error body of API.md.
    func encodedBody() -> ByteBuffer {
        let body = ErrorBody(
            error: .init(
                code: Int(status.code), status: statusName.rawValue, message: message,
                details: details.isEmpty ? nil : details))
        // An error body has only strings and numbers: it always encodes.
        return ByteBuffer(bytes: (try? APIEncoder.bytes(body)) ?? [])
    }
}
