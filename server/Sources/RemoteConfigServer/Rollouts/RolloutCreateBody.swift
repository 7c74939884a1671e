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
        guard case .object(let object)? = try? JSONValue(parsing: buffer.readableBytesView) else {
            throw APIError.invalidField("body", reason: "MALFORMED_JSON", "the request body must be a JSON object")
        }
        return try plan(JSONBody.decode(.object(object)) { try RolloutCreate(from: $0) })
    }

    /// The plan of a decoded body, once its fields pass every check that needs no template.
    static func plan(_ body: RolloutCreate) throws -> RolloutPlan {
        guard !body.parameter.isEmpty else {
            throw APIError.invalidField("parameter", reason: "REQUIRED", "parameter is required")
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
        if let audience { try checkAudience(audience, percent: body.steps[0].percent) }
        return RolloutPlan(
            parameter: body.parameter, value: body.value, audience: audience,
            steps: body.steps.map { Rollout.Step(percent: $0.percent, holdSeconds: $0.holdSeconds) },
            description: description)
    }

    /// Checks the audience alone, then as the rollout's condition wraps it (`(<audience>) && percent(…) <= N`),
    /// so that an audience leaving no room for the share (50 atoms, nesting at the limit) is refused as the
    /// audience rather than as a condition the caller never wrote.
    static func checkAudience(_ audience: String, percent: Double) throws {
        do {
            _ = try ConditionParser.parse(audience)
        } catch {
            throw APIError.invalidField(
                "audience", reason: error.validationReason, "audience is not a condition expression: \(error)")
        }
        let wrapped = RolloutTemplate(
            parameter: "", value: "", audience: audience, conditionName: RolloutTemplate.conditionName(id: .max))
        do {
            _ = try ConditionParser.parse(wrapped.expression(percent: percent))
        } catch {
            throw APIError.invalidField(
                "audience", reason: error.validationReason,
                "audience leaves no room for the rollout's share, (<audience>) && percent(…) <= N: \(error.message)")
        }
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
}
