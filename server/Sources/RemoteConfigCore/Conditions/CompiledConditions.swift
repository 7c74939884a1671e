import RemoteConfigVersions

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
