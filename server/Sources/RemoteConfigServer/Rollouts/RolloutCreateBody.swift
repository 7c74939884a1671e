import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// The body of `POST …/rollouts`, decoded and checked field by field; every refusal is a 400 naming the field,
/// before anything is stored.
enum RolloutCreateBody {
    /// At most this many steps: a plan people can read.
    static let maximumSteps = 100
    /// The longest hold a step may have: a year.
    static let maximumHold: Int64 = 366 * 86_400

    /// Reads the body and checks what needs no template (types, steps, audience, lengths).
    static func read(_ request: Request, context: AppRequestContext) async throws -> RolloutPlan {
        let buffer = try await request.body.collect(upTo: context.maxUploadSize)
        let bytes = Data(buffer.readableBytesView)
        guard case .object(let object)? = try? JSONValue(parsing: buffer.readableBytesView) else {
            throw APIError.invalidField("body", reason: "MALFORMED_JSON", "the request body must be a JSON object")
        }
        for key in object.keys where !RolloutCreate.fields.contains(key) {
            throw APIError.invalidField(
                key, reason: "UNKNOWN_FIELD",
                "\(key) is not a rollout field; send " + RolloutCreate.fields.sorted().joined(separator: ", "))
        }
        if case .array(let steps)? = object["steps"] {
            try checkSteps(steps)
        }
        let body: RolloutCreate
        do {
            body = try JSONDecoder().decode(RolloutCreate.self, from: bytes)
        } catch let error as DecodingError {
            throw Self.apiError(error)
        }
        return try plan(body)
    }

    /// What the decoder would not say by name: a step's unknown field, or a hold that is not a whole number.
    static func checkSteps(_ steps: [JSONValue]) throws {
        for (index, step) in steps.enumerated() {
            guard case .object(let fields) = step else { continue }
            for key in fields.keys where key != "percent" && key != "holdSeconds" {
                throw APIError.invalidField(
                    "steps[\(index)].\(key)", reason: "UNKNOWN_FIELD",
                    "steps[\(index)].\(key) is not a step field; send percent and holdSeconds")
            }
            if case .number(let text)? = fields["holdSeconds"], Int64(text) == nil,
                Double(text).flatMap({ Int64(exactly: $0) }) == nil
            {
                throw APIError.invalidField(
                    "steps[\(index)].holdSeconds", reason: "INVALID_TYPE",
                    "steps[\(index)].holdSeconds must be a whole number of seconds")
            }
        }
    }

    /// The plan of a decoded body, once its fields pass every check that needs no template.
    static func plan(_ body: RolloutCreate) throws -> RolloutPlan {
        guard !body.parameter.isEmpty else {
            throw APIError.invalidField("parameter", reason: "REQUIRED", "parameter is required")
        }
        for (field, text) in [("parameter", body.parameter), ("value", body.value), ("audience", body.audience ?? "")]
        where text.unicodeScalars.contains("\u{0}") {
            throw APIError.invalidField(field, reason: "INVALID_CHARACTER", "\(field) must not contain U+0000")
        }
        let description = body.description ?? ""
        try TextLimits.check(description, field: "description", limit: TextLimits.description)
        guard !body.steps.isEmpty else {
            throw APIError.invalidField("steps", reason: "REQUIRED", "steps must list at least one step")
        }
        guard body.steps.count <= maximumSteps else {
            throw APIError.invalidField(
                "steps", reason: "LIMIT_EXCEEDED", "a rollout has at most \(maximumSteps) steps")
        }
        var previous = 0.0
        for (index, step) in body.steps.enumerated() {
            guard RolloutTemplate.isValid(percent: step.percent) else {
                throw APIError.invalidField(
                    "steps[\(index)].percent", reason: "INVALID_PERCENT",
                    "steps[\(index)].percent must be above 0 and at most 100, with at most 6 decimals")
            }
            guard step.percent > previous else {
                throw APIError.invalidField(
                    "steps[\(index)].percent", reason: "NOT_INCREASING",
                    "steps[\(index)].percent must be above the step before it (\(RolloutTemplate.format(percent: previous)))"
                )
            }
            previous = step.percent
            if let hold = step.holdSeconds, !(0...maximumHold).contains(hold) {
                throw APIError.invalidField(
                    "steps[\(index)].holdSeconds", reason: "INVALID_HOLD",
                    "steps[\(index)].holdSeconds must be a whole number of seconds from 0 to \(maximumHold)")
            }
        }
        var audience = body.audience?.trimmingCharacters(in: .whitespacesAndNewlines)
        if audience?.isEmpty == true { audience = nil }
        if let audience {
            do {
                _ = try ConditionParser.parse(audience)
            } catch {
                throw APIError.invalidField(
                    "audience", reason: "INVALID_EXPRESSION", "audience is not a condition expression: \(error)")
            }
        }
        return RolloutPlan(
            parameter: body.parameter, value: body.value, audience: audience,
            steps: body.steps.map { Rollout.Step(percent: $0.percent, holdSeconds: $0.holdSeconds) },
            description: description)
    }

    /// Checks the plan against the template published now: the parameter exists and the value fits its type.
    static func check(_ plan: RolloutPlan, against published: RemoteConfigTemplate) throws {
        let template = RolloutTemplate(
            parameter: plan.parameter, value: plan.value, audience: plan.audience, conditionName: "")
        guard let parameter = template.parameter(in: published) else {
            throw APIError.invalidField(
                "parameter", reason: "PARAMETER_NOT_FOUND",
                "the published template has no parameter \(plan.parameter); publish it first")
        }
        if let problem = TemplateValidator.typeProblem(plan.value, parameter.valueType) {
            throw APIError.invalidField(
                "value", reason: "PARAM_VALUE_TYPE_MISMATCH",
                "\"\(plan.value.prefix(60))\" is not \(problem), the type of \(plan.parameter)")
        }
    }

    /// A decoding failure as a 400 naming the field (`steps[1].holdSeconds`).
    static func apiError(_ error: DecodingError) -> APIError {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += (text.isEmpty ? "" : ".") + key.stringValue
                }
            }
            return text.isEmpty ? "body" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            let field = path(context.codingPath + [key])
            return .invalidField(field, reason: "REQUIRED", "\(field) is required")
        case .valueNotFound(_, let context):
            let field = path(context.codingPath)
            return .invalidField(field, reason: "REQUIRED", "\(field) is required")
        case .typeMismatch(let type, let context):
            let field = path(context.codingPath)
            return .invalidField(field, reason: "INVALID_TYPE", "\(field) must be \(describe(type))")
        case .dataCorrupted(let context):
            let field = path(context.codingPath)
            let whole = field.hasSuffix("holdSeconds") ? " (a whole number of seconds)" : ""
            return .invalidField(field, reason: "INVALID_TYPE", "\(field) is not a value it can take\(whole)")
        @unknown default:
            return .invalidField("body", reason: "INVALID_TYPE", "the body is not a rollout")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Double.Type: "a number"
        case is Int64.Type, is Int.Type: "a whole number"
        default: "an array"
        }
    }
}
