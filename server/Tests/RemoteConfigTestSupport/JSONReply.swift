import Foundation
import RemoteConfigAPI
import RemoteConfigCore

/// A reply whose body tests read as JSON: the in-process `TestApp.Reply`, the child process's `HTTP.Reply`, and what
/// a `WebhookReceiver` received.
///
/// Admin answers are decoded into their RemoteConfigAPI type (`decode(_:)`); template payloads and client answers,
/// where member order and the exact text of numbers matter, are read as `value`.
public protocol JSONReply {
    /// The raw body.
    var body: Data { get }
}

extension JSONReply {
    /// The body as text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON (`null` when it is empty or not JSON).
    public var value: JSONValue { (try? JSONValue(parsing: [UInt8](body))) ?? .null }

    /// The body as `type`, one of the API's bodies, read the way the server reads bodies (`APIDecoder`); a body that
    /// does not fit throws an error quoting it, which fails the test.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try APIDecoder.decode(type, from: [UInt8](body))
        } catch let error as DecodingError {
            throw ReplyDecodingFailure(type: type, error: error, text: text)
        }
    }

    /// The error body of an error answer (`nil` when the body does not have the API's error shape).
    public var errorBody: ErrorBody? { try? APIDecoder.decode(ErrorBody.self, from: [UInt8](body)) }

    /// `error.status` of an error body.
    public var errorStatus: String? { errorBody?.error.status }

    /// `error.message` of an error body.
    public var errorMessage: String? { errorBody?.error.message }

    /// `error.details` of an error body (empty without details).
    public var errorDetails: [ErrorBody.Detail] { errorBody?.error.details ?? [] }

    /// `error.details[*].field` of an error body.
    public var errorFields: [String] { errorDetails.map(\.field) }

    /// `error.details[*].reason` of an error body.
    public var errorReasons: [String] { errorDetails.map(\.reason) }
}
