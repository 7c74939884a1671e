/// A condition compiled once: lists as sets, versions pre-parsed, regexes built, dates resolved.
public struct CompiledCondition: Sendable {
    /// The condition's name.
    public let name: String
    /// The parsed expression (for tools: diffs, input analysis).
    public let expression: ConditionExpression
    let node: CompiledNode

    /// Parses and compiles an expression.
    public init(name: String, expression text: String) throws(ConditionParseError) {
        var seeds = SeedTable()
        try self.init(name: name, expression: text, seeds: &seeds)
    }

    /// Compiles with a seed table shared by a whole template, so that a request hashes each
    /// distinct seed once however many conditions use it.
    init(name: String, expression text: String, seeds: inout SeedTable) throws(ConditionParseError) {
        self.name = name
        self.expression = try ConditionParser.parse(text)
        self.node = CompiledNode(expression, seeds: &seeds)
        // The table only grows, so this snapshot holds every index this condition uses.
        self.seeds = seeds.seeds
    }

    /// The `percent` seeds, indexed by `CompiledAtom.percent`'s `seedIndex`.
    let seeds: [String]

    /// Evaluates against one caller.
    public func evaluate(_ context: FetchContext) -> ConditionTruth {
        var scratch = EvaluationScratch(context: context, seeds: seeds)
        return node.evaluate(&scratch)
    }
}
