import Foundation
import RemoteConfigCore

/// The body of `remoteConfig:impact`: one candidate (`template`, `draft` or `changeRequest`), and optionally
/// `since` and `forceUpdateParameter`. Anything else, or a field of the wrong kind, is a 400 naming it.
struct ImpactBody: RequestBody {
    /// What would be published.
    enum Candidate {
        case template(JSONValue)
        case draft
        case changeRequest(Int64)
    }

    let candidate: Candidate
    /// The start of the window of recently seen instances.
    let since: Date?
    let forceUpdateParameter: String

    static let fields: Set<String> = ["template", "draft", "changeRequest", "since", "forceUpdateParameter"]

    init(_ body: JSONBody) throws {
        for key in body.object.keys where !Self.fields.contains(key) {
            throw APIError.invalidField(key, reason: "UNKNOWN_FIELD", "\(key) is not a field of an impact request")
        }
        let named = ["template", "draft", "changeRequest"].filter { body.object[$0] != nil }
        guard named.count == 1, let field = named.first else {
            throw APIError.invalidField(
                named.isEmpty ? "template" : named[1], reason: named.isEmpty ? "REQUIRED" : "CONFLICTING_FIELDS",
                "name exactly one candidate: template, draft or changeRequest")
        }
        switch (field, body.object[field]!) {
        case ("template", .object):
            candidate = .template(body.object[field]!)
        case ("template", _):
            throw APIError.invalidField("template", reason: "NOT_AN_OBJECT", "template must be a template object")
        case ("draft", .bool(true)):
            candidate = .draft
        case ("draft", _):
            throw APIError.invalidField("draft", reason: "NOT_TRUE", "draft must be true to estimate the draft")
        case (_, .string(let text)):
            let id = text.hasPrefix("changeRequests/") ? String(text.dropFirst("changeRequests/".count)) : text
            guard let number = Int64(id), number >= 1 else {
                throw APIError.invalidField(
                    "changeRequest", reason: "INVALID_CHANGE_REQUEST",
                    "changeRequest must be a change request id such as \"12\" or \"changeRequests/12\"")
            }
            candidate = .changeRequest(number)
        default:
            throw APIError.invalidField("changeRequest", reason: "NOT_A_STRING", "changeRequest must be a string")
        }
        switch body.object["since"] {
        case nil:
            since = nil
        case .string(let text)?:
            guard let date = RFC3339.parse(text) else {
                throw APIError.invalidField("since", reason: "INVALID_TIME", "since must be an RFC 3339 time")
            }
            since = date
        default:
            throw APIError.invalidField("since", reason: "INVALID_TIME", "since must be an RFC 3339 time")
        }
        switch body.object["forceUpdateParameter"] {
        case nil:
            forceUpdateParameter = "require_force_update"
        case .string(let text)? where !text.isEmpty && text.count <= 256:
            forceUpdateParameter = text
        default:
            throw APIError.invalidField(
                "forceUpdateParameter", reason: "NOT_A_STRING", "forceUpdateParameter must be a parameter key")
        }
    }
}
