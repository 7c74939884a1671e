import Foundation
import Hummingbird
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore

/// A request body read as a JSON object (Core's strict parser) and decoded as one of the API's bodies.
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
        try decode(.object(try await read(request, context: context).object), using: make)
    }

    /// Decodes a body already parsed through `make`; 400 naming the field path and the reason.
    static func decode<T>(_ value: JSONValue, using make: (any Decoder) throws -> T) throws -> T {
        do {
            return try APIDecoder.decode(from: value, using: make)
        } catch let error as DecodingError {
            let (field, problem) = FieldProblem.of(error)
            throw APIError.invalidField(field, reason: problem.reason, problem.sentence(field: field))
        }
    }
}
