import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigCore

/// An OFREP evaluation that cannot be given: a status and OFREP's error code, answered in OFREP's error
/// shape (`{"key", "errorCode", "errorDetails"}`) rather than the API's, because OpenFeature providers read
/// that shape to tell the app why it got its own default.
struct OFREPFailure: Error, Sendable, Equatable {
    var status: HTTPResponse.Status
    /// `PARSE_ERROR`, `TARGETING_KEY_MISSING`, `INVALID_CONTEXT`, `FLAG_NOT_FOUND` or `GENERAL`.
    var code: String
    /// One sentence for a person.
    var details: String

    /// 400 with `code`.
    static func badRequest(_ code: String, _ details: String) -> OFREPFailure {
        OFREPFailure(status: .badRequest, code: code, details: details)
    }

    /// 404 `FLAG_NOT_FOUND`.
    static func flagNotFound(_ key: String) -> OFREPFailure {
        OFREPFailure(status: .notFound, code: "FLAG_NOT_FOUND", details: "no parameter '\(key)' is published")
    }

    /// The JSON body, with the flag's key on the single-flag route.
    func body(key: String?) -> ByteBuffer {
        var object: JSONObject = [:]
        if let key { object["key"] = .string(key) }
        object["errorCode"] = .string(code)
        object["errorDetails"] = .string(details)
        return ByteBuffer(bytes: JSONValue.object(object).jsonBytes())
    }
}
