import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// One field-level problem of a request, as in Google API error details.
public struct ErrorDetail: Sendable, Equatable, Codable {
    public var field: String
    public var reason: String
    public var message: String?

    public init(field: String, reason: String, message: String? = nil) {
        self.field = field
        self.reason = reason
        self.message = message
    }
}

/// Every error the API answers with; mapped to the JSON error shape of API.md in this one place.
public struct APIError: Error, Sendable, HTTPResponseError {
    public var status: HTTPResponse.Status
    public var message: String
    public var details: [ErrorDetail]
    public var headers: HTTPFields

    public init(
        _ status: HTTPResponse.Status, _ message: String, details: [ErrorDetail] = [], headers: HTTPFields = [:]
    ) {
        self.status = status
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

    public static func unauthenticated(_ message: String) -> APIError {
        APIError(.unauthorized, message, headers: [.wwwAuthenticate: "Bearer"])
    }

    public static func permissionDenied(_ message: String) -> APIError { APIError(.forbidden, message) }
    public static func notFound(_ message: String) -> APIError { APIError(.notFound, message) }
    public static func alreadyExists(_ message: String) -> APIError { APIError(.conflict, message) }

    /// 405 with `Allow` listing the methods the path serves.
    static func methodNotAllowed(_ request: Request, allowed: [HTTPRequest.Method]) -> APIError {
        var headers = HTTPFields()
        headers[.allow] = allowed.map(\.rawValue).joined(separator: ", ")
        return APIError(
            .methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path)", headers: headers)
    }

    /// 503 with `Retry-After`, while the database cannot be reached.
    public static func unavailable(_ message: String) -> APIError {
        APIError(.serviceUnavailable, message, headers: [.retryAfter: "2"])
    }

    /// The Google API status name for the HTTP status.
    public var statusName: String {
        switch status.code {
        case 400: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 405: "METHOD_NOT_ALLOWED"
        case 409: "ALREADY_EXISTS"
        case 412: "FAILED_PRECONDITION"
        case 413: "PAYLOAD_TOO_LARGE"
        case 428: "PRECONDITION_REQUIRED"
        case 429: "RESOURCE_EXHAUSTED"
        case 499: "CANCELLED"
        case 503: "UNAVAILABLE"
        default: status.code >= 500 ? "INTERNAL" : "UNKNOWN"
        }
    }

    /// Overrides the status name (409 is `ALREADY_EXISTS` or `ABORTED`).
    public var statusNameOverride: String?

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: encodedBody()))
    }

    /// The JSON error body of API.md.
    func encodedBody() -> ByteBuffer {
        var body: [String: Any] = [
            "code": Int(status.code), "status": statusNameOverride ?? statusName, "message": message,
        ]
        if !details.isEmpty {
            body["details"] = details.map { detail -> [String: Any] in
                var entry: [String: Any] = ["field": detail.field, "reason": detail.reason]
                if let message = detail.message { entry["message"] = message }
                return entry
            }
        }
        // Strings, numbers, arrays and dictionaries of them always serialise.
        let data = try! JSONSerialization.data(
            withJSONObject: ["error": body], options: [.sortedKeys, .withoutEscapingSlashes])
        return ByteBuffer(bytes: data)
    }
}
