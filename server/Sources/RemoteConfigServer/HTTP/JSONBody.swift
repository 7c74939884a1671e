import Foundation
import Hummingbird
import NIOCore

/// A request body read as a JSON object, with typed field access that reports the field at fault.
struct JSONBody {
    let object: [String: Any]

    /// Reads and parses the body (at most the context's upload limit); 400 when it is not a JSON object.
    static func read(_ request: Request, context: AppRequestContext) async throws -> JSONBody {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        let data = Data(buffer: buffer)
        guard !data.isEmpty else { return JSONBody(object: [:]) }
        let parsed: Any
        do {
            parsed = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            throw APIError.invalidField("body", reason: "MALFORMED_JSON", "the request body is not valid JSON")
        }
        guard let object = parsed as? [String: Any] else {
            throw APIError.invalidField("body", reason: "NOT_AN_OBJECT", "the request body must be a JSON object")
        }
        return JSONBody(object: object)
    }

    /// A string field; nil when absent or null, 400 when of another type.
    func string(_ field: String) throws -> String? {
        guard let value = object[field], !(value is NSNull) else { return nil }
        guard let string = value as? String else {
            throw APIError.invalidField(field, reason: "NOT_A_STRING", "\(field) must be a string")
        }
        // PostgreSQL text cannot hold U+0000: refuse it here, naming the field, rather than fail at the store.
        if string.unicodeScalars.contains("\u{0}") {
            throw APIError.invalidField(field, reason: "INVALID_CHARACTER", "\(field) must not contain U+0000")
        }
        return string
    }

    /// A string or whole-number field as text (Firebase sends version numbers as strings, people type numbers).
    func stringOrInteger(_ field: String) throws -> String? {
        guard let value = object[field], !(value is NSNull) else { return nil }
        if value is String { return try string(field) }
        // On Linux a JSON 0 or 1 also casts to Bool: check the number's own type, not `is Bool`.
        if let number = value as? NSNumber, String(cString: number.objCType) != "c" {
            switch String(cString: number.objCType) {
            case "d", "f":
                // 1.0 and 1e0 are the whole number 1 in JSON.
                if let whole = Int64(exactly: number.doubleValue) { return String(whole) }
            default:
                return number.stringValue
            }
        }
        throw APIError.invalidField(field, reason: "NOT_A_STRING", "\(field) must be a string or a whole number")
    }

    /// A required string field.
    func requiredString(_ field: String) throws -> String {
        guard let value = try string(field) else {
            throw APIError.invalidField(field, reason: "REQUIRED", "\(field) is required")
        }
        return value
    }
}

/// JSON responses with a stable layout (sorted keys) and `null` kept where a field has no value.
enum JSONResponse {
    static func make(_ object: [String: Any], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws
        -> Response
    {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// RFC 3339 with milliseconds in UTC, as Firebase writes times.
    static func timestamp(_ date: Date) -> String {
        Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(date)
    }
}
