/// A token of the condition language with the scalar offsets it spans.
struct Token: Sendable {
    enum Kind: Sendable, Equatable {
        case identifier(String)
        case string(String)
        case number(Double)
        case dot
        case leftParen
        case rightParen
        case leftBracket
        case rightBracket
        case comma
        case comparison(ComparisonOperator)
        case not
        case and
        case or
        case end
    }

    var kind: Kind
    /// Offset of the first scalar.
    var start: Int
    /// Offset just past the last scalar.
    var end: Int

    /// How the token reads in an error message.
    var display: String {
        switch kind {
        case .identifier(let name): return "`\(name)`"
        case .string: return "a string"
        case .number: return "a number"
        case .dot: return "`.`"
        case .leftParen: return "`(`"
        case .rightParen: return "`)`"
        case .leftBracket: return "`[`"
        case .rightBracket: return "`]`"
        case .comma: return "`,`"
        case .comparison(let op): return "`\(op.rawValue)`"
        case .not: return "`!`"
        case .and: return "`&&`"
        case .or: return "`||`"
        case .end: return "the end of the expression"
        }
    }
}
