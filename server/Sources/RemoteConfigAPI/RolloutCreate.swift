import RemoteConfigCore

/// The body of `POST /v1/projects/{p}/rollouts`: what to roll out, to whom, and how fast.
public struct RolloutCreate: Codable, Sendable, Equatable {
    /// An existing parameter of the published template.
    public var parameter: String
    /// The new value, as a string that fits the parameter's type.
    public var value: String
    /// A condition expression narrowing who may get the value; absent for everyone.
    public var audience: String?
    /// Percentages increasing, above 0, at most 100.
    public var steps: [RolloutStep]
    public var description: String?

    /// The fields a body may carry; anything else is refused rather than ignored.
    public static let fields: Set<String> = ["parameter", "value", "audience", "steps", "description"]

    public init(
        parameter: String, value: String, audience: String? = nil, steps: [RolloutStep], description: String? = nil
    ) {
        self.parameter = parameter
        self.value = value
        self.audience = audience
        self.steps = steps
        self.description = description
    }

    private enum CodingKeys: String, CodingKey {
        case parameter, value, audience, steps, description
    }

    /// Decodes a body, refusing a member it does not know, on the body or on a step. A value of the wrong JSON
    /// type is `INVALID_TYPE`, as rollouts have always named it.
    public init(from decoder: any Decoder) throws {
        try AnyKey.refuseUnknown(
            in: decoder, known: Self.fields,
            "is not a rollout field; send " + Self.fields.sorted().joined(separator: ", "))
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try Self.checkSteps(container)
        do {
            parameter = try container.decode(String.self, forKey: .parameter)
            value = try container.decode(String.self, forKey: .value)
            audience = try container.decodeIfPresent(String.self, forKey: .audience)
            steps = try container.decode([RolloutStep].self, forKey: .steps)
            description = try container.decodeIfPresent(String.self, forKey: .description)
        } catch DecodingError.typeMismatch(let type, let context) {
            let problem = FieldProblem(reason: "INVALID_TYPE", "must be " + Self.describe(type))
            throw DecodingError.typeMismatch(
                type, .init(codingPath: context.codingPath, debugDescription: problem.message, underlyingError: problem)
            )
        }
    }

    /// What the steps' types would not say by name: a step's unknown member, or a hold that is a number but not
    /// a whole one.
    private static func checkSteps(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        guard var elements = try? container.nestedUnkeyedContainer(forKey: .steps) else { return }
        while !elements.isAtEnd {
            let step = try elements.superDecoder()
            guard let members = try? step.container(keyedBy: AnyKey.self) else { continue }
            try AnyKey.refuseUnknown(
                in: step, known: ["percent", "holdSeconds"], "is not a step field; send percent and holdSeconds")
            let hold = AnyKey(stringValue: "holdSeconds")
            if case .number? = try? members.decodeIfPresent(JSONValue.self, forKey: hold),
                (try? members.decode(Int64.self, forKey: hold)) == nil
            {
                throw FieldProblem.at(
                    [hold], of: step, FieldProblem(reason: "INVALID_TYPE", "must be a whole number of seconds"))
            }
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
