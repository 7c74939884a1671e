import Foundation
import Hummingbird
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore

extension RequestBody {
    /// Reads and checks the request's body.
    static func read(_ request: Request, context: AppRequestContext) async throws -> Self {
        try Self(try await JSONBody.read(request, context: context))
    }
}

/// A request body read as a JSON object (Core's strict parser), with typed field access that reports the
/// field at fault.
struct JSONBody {
    let object: JSONObject

    /// Reads and parses the body (at most the context's upload limit); 400 when it is not a JSON object.
    static func read(_ request: Request, context: AppRequestContext) async throws -> JSONBody {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0 else { return JSONBody(object: [:]) }
        let parsed: JSONValue
        do {
            parsed = try JSONValue(parsing: buffer.readableBytesView)
        } catch {
            throw APIError.invalidField("body", reason: "MALFORMED_JSON", "the request body is not valid JSON")
        }
        guard case .object(let object) = parsed else {
            throw APIError.invalidField("body", reason: "NOT_AN_OBJECT", "the request body must be a JSON object")
        }
        return JSONBody(object: object)
    }

    /// Reads the request's body as `type` (a RemoteConfigAPI body); 400 naming the field path and the reason.
    static func decode<T: Decodable>(_ type: T.Type, _ request: Request, context: AppRequestContext) async throws -> T {
        try await decode(request, context: context) { try T(from: $0) }
    }

    /// Reads the request's body through `make` (a body's initializer taking more than a decoder).
    static func decode<T>(
        _ request: Request, context: AppRequestContext, using make: (any Decoder) throws -> T
    ) async throws -> T {
        let body = try await read(request, context: context)
        do {
            return try APIDecoder.decode(from: .object(body.object), using: make)
        } catch let error as DecodingError {
            let (field, problem) = FieldProblem.of(error)
            throw APIError.invalidField(field, reason: problem.reason, problem.sentence(field: field))
        }
    }

    /// A string field; nil when absent or null, 400 when of another type.
    func string(_ field: String) throws -> String? {
        switch object[field] {
        case nil, .null?:
            return nil
        case .string(let string)?:
            // PostgreSQL text cannot hold U+0000: refuse it here, naming the field, rather than fail at the store.
            if string.unicodeScalars.contains("\u{0}") {
                throw APIError.invalidField(field, reason: "INVALID_CHARACTER", "\(field) must not contain U+0000")
            }
            return string
        default:
            throw APIError.invalidField(field, reason: "NOT_A_STRING", "\(field) must be a string")
        }
    }
}
