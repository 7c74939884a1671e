import Foundation

/// A parsed condition expression: atoms joined by `!`, `&&`, `||` and parentheses.
public indirect enum ConditionExpression: Sendable, Hashable {
    /// `true` or `false`.
    case literal(Bool)
    /// One comparison, e.g. `device.os == 'ios'`.
    case atom(ConditionAtom)
    /// `!operand`.
    case not(ConditionExpression)
    /// `a && b && …` (two or more operands).
    case and([ConditionExpression])
    /// `a || b || …` (two or more operands).
    case or([ConditionExpression])

    /// The number of atoms and literals, the quantity API.md limits to 50.
    public var atomCount: Int {
        switch self {
        case .literal, .atom: return 1
        case .not(let operand): return operand.atomCount
        case .and(let operands), .or(let operands): return operands.reduce(0) { $0 + $1.atomCount }
        }
    }

    /// Every atom, left to right.
    public var atoms: [ConditionAtom] {
        switch self {
        case .literal: return []
        case .atom(let atom): return [atom]
        case .not(let operand): return operand.atoms
        case .and(let operands), .or(let operands): return operands.flatMap(\.atoms)
        }
    }
}
