import RemoteConfigVersions

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

/// A condition that failed to compile, for reporting with its name and position.
public struct ConditionCompileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The index in the template's `conditions`.
    public var index: Int
    /// The condition's name.
    public var name: String
    /// The parse error, with the character position in the expression.
    public var error: ConditionParseError

    /// Creates an error.
    public init(index: Int, name: String, error: ConditionParseError) {
        self.index = index
        self.name = name
        self.error = error
    }

    public var description: String { "condition \"\(name)\": \(error)" }
}

/// Interns `percent` seeds so a request hashes each distinct seed at most once.
struct SeedTable {
    var seeds: [String] = []

    mutating func index(of seed: String) -> Int {
        if let index = seeds.firstIndex(of: seed) { return index }
        seeds.append(seed)
        return seeds.count - 1
    }
}

indirect enum CompiledNode: Sendable {
    case constant(Bool)
    case atom(CompiledAtom)
    case not(CompiledNode)
    case and([CompiledNode])
    case or([CompiledNode])

    init(_ expression: ConditionExpression, seeds: inout SeedTable) {
        switch expression {
        case .literal(let flag): self = .constant(flag)
        case .atom(let atom): self = .atom(CompiledAtom(atom, seeds: &seeds))
        case .not(let operand): self = .not(CompiledNode(operand, seeds: &seeds))
        case .and(let operands):
            var nodes: [CompiledNode] = []
            for operand in operands { nodes.append(CompiledNode(operand, seeds: &seeds)) }
            self = .and(nodes)
        case .or(let operands):
            var nodes: [CompiledNode] = []
            for operand in operands { nodes.append(CompiledNode(operand, seeds: &seeds)) }
            self = .or(nodes)
        }
    }

    /// Roughly how much work evaluating this costs: one per atom, more for regular expressions.
    var cost: Int {
        switch self {
        case .constant: return 1
        case .atom(.matches(_, let regexes)): return 1 + 8 * regexes.count
        case .atom: return 1
        case .not(let operand): return operand.cost
        case .and(let operands), .or(let operands): return operands.reduce(0) { $0 + $1.cost }
        }
    }

    /// Three-valued, short-circuiting: `false && x` and `true || x` do not evaluate `x`.
    func evaluate(_ scratch: inout EvaluationScratch) -> ConditionTruth {
        switch self {
        case .constant(let flag): return .from(flag)
        case .atom(let atom): return atom.evaluate(&scratch)
        case .not(let operand):
            switch operand.evaluate(&scratch) {
            case .true: return .false
            case .false: return .true
            case .unknown: return .unknown
            }
        case .and(let operands):
            var sawUnknown = false
            for operand in operands {
                switch operand.evaluate(&scratch) {
                case .false: return .false
                case .unknown: sawUnknown = true
                case .true: break
                }
            }
            return sawUnknown ? .unknown : .true
        case .or(let operands):
            var sawUnknown = false
            for operand in operands {
                switch operand.evaluate(&scratch) {
                case .true: return .true
                case .unknown: sawUnknown = true
                case .false: break
                }
            }
            return sawUnknown ? .unknown : .false
        }
    }
}

/// An atom with everything that does not depend on the caller computed in advance.
enum CompiledAtom: Sendable {
    case platform(equal: Bool, Platform)
    /// Lowercased codes.
    case country(Set<String>)
    /// Normalised tags (lowercase, `_` as `-`).
    case language(Set<String>)
    case appId(equal: Bool, String)
    /// `nil` when the literal is not a version: the atom is then false for any present input.
    case version(StringSource, ComparisonOperator, SemanticVersion?)
    case contains(StringSource, [String])
    case notContains(StringSource, [String])
    case exactlyMatches(StringSource, Set<String>)
    case matches(StringSource, [CompiledRegex])
    case stringEquality(StringSource, equal: Bool, String)
    case numeric(StringSource, ComparisonOperator, Double)
    case instanceId(Set<String>)
    /// Seconds since 1970.
    case dateTime(ComparisonOperator, Double)
    case firstOpen(ComparisonOperator, Double)
    case percent(seedIndex: Int, PercentRange)

    init(_ atom: ConditionAtom, seeds: inout SeedTable) {
        switch atom {
        case .platform(let op, let platform): self = .platform(equal: op == .equal, platform)
        case .countryIn(let codes): self = .country(Set(codes.map { $0.lowercased() }))
        case .languageIn(let tags): self = .language(Set(tags.map(LanguageTag.normalize)))
        case .appId(let op, let id): self = .appId(equal: op == .equal, id)
        case .versionCompare(let source, let op, let text): self = .version(source, op, SemanticVersion(text))
        case .stringMethod(let source, .contains, let values): self = .contains(source, values.map(JSText.trimmed))
        case .stringMethod(let source, .notContains, let values):
            self = .notContains(source, values.map(JSText.trimmed))
        case .stringMethod(let source, .exactlyMatches, let values):
            self = .exactlyMatches(source, Set(values.map(JSText.trimmed)))
        case .stringMethod(let source, .matches, let patterns):
            // The parser has already rejected patterns that do not compile.
            self = .matches(source, patterns.compactMap { try? CompiledRegex($0) })
        case .stringEquality(let source, let op, let text):
            self = .stringEquality(source, equal: op == .equal, JSText.trimmed(text))
        case .numericCompare(let source, let op, let value): self = .numeric(source, op, value)
        case .instanceIdIn(let ids): self = .instanceId(Set(ids))
        case .dateTime(let op, let date): self = .dateTime(op, date.instant.timeIntervalSince1970)
        case .firstOpenTimestamp(let op, let date): self = .firstOpen(op, date.instant.timeIntervalSince1970)
        case .percent(let seed, let range): self = .percent(seedIndex: seeds.index(of: seed), range)
        }
    }
}

/// Compiles a template's conditions in order, or reports the first that does not parse.
public func compileConditions(_ conditions: [Condition]) throws(ConditionCompileError) -> [CompiledCondition] {
    var compiled: [CompiledCondition] = []
    compiled.reserveCapacity(conditions.count)
    var seeds = SeedTable()
    for (index, condition) in conditions.enumerated() {
        do {
            compiled.append(
                try CompiledCondition(name: condition.name, expression: condition.expression, seeds: &seeds))
        } catch {
            throw ConditionCompileError(index: index, name: condition.name, error: error)
        }
    }
    return compiled
}
