import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigCore

/// The body of an OFREP evaluation, `{"context": {"targetingKey": "…", …}}`, turned into the `FetchContext`
/// a fetch with the same facts would have, so that both ways give the same answer.
///
/// `targetingKey` is the `appInstanceId` (percent rollouts bucket a user the same way through both); the
/// attributes a fetch names (`platform`, `appVersion`, …) are read and checked exactly as a fetch reads them;
/// every other attribute is a custom signal: strings and numbers as they are, booleans as `"true"` and
/// `"false"` (what a fetch would send for them, and what string conditions compare), `null` as not sent.
/// Objects and lists are left out: OpenFeature contexts often carry them for other providers, and no
/// condition can read one.
enum OFREPRequest {
    /// Parses `bytes`; 400 `PARSE_ERROR`, `TARGETING_KEY_MISSING` or `INVALID_CONTEXT` for a bad body.
    static func context(from bytes: some Collection<UInt8>, now: Date) throws(OFREPFailure) -> FetchContext {
        let body: JSONObject
        do {
            guard case .object(let parsed) = try JSONValue(parsing: bytes) else {
                throw OFREPFailure.badRequest("PARSE_ERROR", "the request body must be a JSON object")
            }
            body = parsed
        } catch let error as JSONParseError {
            throw OFREPFailure.badRequest("PARSE_ERROR", "the request body is not valid JSON: \(error)")
        } catch let error as OFREPFailure {
            throw error
        } catch {
            throw OFREPFailure.badRequest("PARSE_ERROR", "the request body is not valid JSON")
        }
        let attributes: JSONObject
        switch body["context"] {
        case .object(let object)?: attributes = object
        case nil, .null?:
            throw OFREPFailure.badRequest("TARGETING_KEY_MISSING", "the body has no context with a targetingKey")
        default: throw OFREPFailure.badRequest("INVALID_CONTEXT", "context must be an object")
        }
        var context = FetchContext(now: now)
        switch attributes["targetingKey"] {
        case nil, .null?:
            throw OFREPFailure.badRequest(
                "TARGETING_KEY_MISSING", "the context has no targetingKey (the app instance id)")
        case .string(let key)?:
            guard !key.isEmpty else {
                throw OFREPFailure.badRequest("TARGETING_KEY_MISSING", "the targetingKey is empty")
            }
            guard key.utf8.count <= 256 || key.count <= 256 else {
                throw OFREPFailure.badRequest("INVALID_CONTEXT", "targetingKey is longer than 256 characters")
            }
            context.appInstanceId = key
        default:
            throw OFREPFailure.badRequest("INVALID_CONTEXT", "targetingKey must be a string")
        }
        do {
            try FetchRequest.readAttributes(attributes, into: &context)
            var signals: [String: SignalValue] = [:]
            for member in attributes where member.key != "targetingKey" && !FetchRequest.attributes.contains(member.key)
            {
                let value: JSONValue
                switch member.value {
                case .null, .object, .array: continue
                case .bool(let flag): value = .string(flag ? "true" : "false")
                default: value = member.value
                }
                signals[member.key] = try FetchRequest.signal(named: member.key, value, path: "context.\(member.key)")
            }
            guard signals.count <= FetchRequest.signalLimit else {
                throw APIError.invalidField(
                    "context", reason: "LIMIT_EXCEEDED",
                    "at most \(FetchRequest.signalLimit) custom attributes besides the fetch attributes")
            }
            context.customSignals = signals
        } catch let error as APIError {
            throw OFREPFailure.badRequest("INVALID_CONTEXT", error.message)
        } catch {
            throw OFREPFailure.badRequest("INVALID_CONTEXT", "the context is not valid")
        }
        return context
    }
}
