import Foundation
import Hummingbird
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore

/// JSON responses, written by Core's writer (the one JSON stack of the server).
enum JSONResponse {
    /// `body` (a RemoteConfigAPI body) as a JSON answer.
    static func make(
        _ body: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]
    ) throws -> Response {
        try make(bytes: APIEncoder.bytes(body), status: status, headers: headers)
    }

    /// Encoded JSON as an answer.
    static func make(bytes: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func make(_ object: JSONObject, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: status, headers: fields,
            body: .init(byteBuffer: ByteBuffer(bytes: JSONValue.object(object).jsonBytes())))
    }

    /// RFC 3339 with milliseconds in UTC, as Firebase writes times; Gregorian before 1582 too.
    static func timestamp(_ date: Date) -> String {
        RFC3339.format(date)
    }
}
