/// Parses condition expressions (see docs/conditions.md for the grammar).
///
/// Recursive descent over a token array. Recursion only happens through parentheses and `!`,
/// both counted against `maximumDepth`, so hostile input cannot overflow the stack.
public struct ConditionParser {
    /// API.md: at most 50 atoms per condition.
    public static let maximumAtoms = 50
    /// API.md: at most 50 ids in `app.firebaseInstallationId in [...]`.
    public static let maximumInstanceIds = 50
    /// Nesting of parentheses and `!`; far beyond what 50 atoms need.
    public static let maximumDepth = 64

    let scalars: [Unicode.Scalar]
    var tokens: [Token] = []
    var position = 0
    var atomCount = 0

    private init(text: String) {
        scalars = Array(text.unicodeScalars)
    }

    /// Parses one expression, or throws the first problem with its position.
    public static func parse(_ text: String) throws(ConditionParseError) -> ConditionExpression {
        var parser = ConditionParser(text: text)
        do throws(ConditionParseError) {
            var lexer = Lexer(scalars: parser.scalars)
            parser.tokens = try lexer.tokenize()
            let expression = try parser.parseOr(depth: 0)
            guard parser.current.kind == .end else {
                throw parser.unexpected(expecting: "`&&`, `||` or the end of the expression")
            }
            return expression
        } catch {
            // Positions are tracked in Unicode scalars; people count characters.
            var converted = error
            converted.position = parser.characterOffset(ofScalar: error.position)
            throw converted
        }
    }

    private func characterOffset(ofScalar offset: Int) -> Int {
        guard offset > 0 else { return 0 }
        let prefix = String(String.UnicodeScalarView(scalars[0..<min(offset, scalars.count)]))
        return prefix.count
    }

    // MARK: - Token helpers

    var current: Token { tokens[position] }

    mutating func advance() -> Token {
        let token = tokens[position]
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    func error(_ kind: ConditionParseError.Kind, _ message: String, at offset: Int) -> ConditionParseError {
        ConditionParseError(kind: kind, position: offset, message: message)
    }

    func error(_ message: String, at offset: Int) -> ConditionParseError {
        ConditionParseError(kind: .syntax, position: offset, message: message)
    }

    func unexpected(expecting expected: String) -> ConditionParseError {
        error("expected \(expected) but found \(current.display)", at: current.start)
    }

    mutating func expect(_ kind: Token.Kind, _ display: String) throws(ConditionParseError) {
        guard current.kind == kind else { throw unexpected(expecting: display) }
        _ = advance()
    }

    mutating func expectKeyword(_ word: String) throws(ConditionParseError) {
        guard case .identifier(word) = current.kind else { throw unexpected(expecting: "`\(word)`") }
        _ = advance()
    }

    mutating func expectString(_ what: String = "a quoted string") throws(ConditionParseError) -> (String, Token) {
        guard case .string(let text) = current.kind else { throw unexpected(expecting: what) }
        return (text, advance())
    }

    mutating func expectNumber() throws(ConditionParseError) -> (Double, Token) {
        guard case .number(let value) = current.kind else { throw unexpected(expecting: "a number") }
        return (value, advance())
    }

    mutating func expectComparison(_ what: String = "a comparison operator") throws(ConditionParseError) -> (
        ComparisonOperator, Token
    ) {
        guard case .comparison(let op) = current.kind else { throw unexpected(expecting: what) }
        return (op, advance())
    }

    mutating func expectEquality() throws(ConditionParseError) -> EqualityOperator {
        guard case .comparison(let op) = current.kind, op == .equal || op == .notEqual else {
            throw unexpected(expecting: "`==` or `!=`")
        }
        _ = advance()
        return op == .equal ? .equal : .notEqual
    }

    /// `[ 'a', 'b', … ]`: one or more strings.
    mutating func parseStringList() throws(ConditionParseError) -> (values: [String], start: Int) {
        let start = current.start
        try expect(.leftBracket, "`[`")
        var values: [String] = []
        while true {
            values.append(try expectString().0)
            if current.kind == .comma {
                _ = advance()
            } else if current.kind == .rightBracket {
                _ = advance()
                return (values, start)
            } else {
                throw unexpected(expecting: "`,` or `]`")
            }
        }
    }

    // MARK: - Boolean structure

    mutating func parseOr(depth: Int) throws(ConditionParseError) -> ConditionExpression {
        var operands = [try parseAnd(depth: depth)]
        while current.kind == .or {
            _ = advance()
            operands.append(try parseAnd(depth: depth))
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    mutating func parseAnd(depth: Int) throws(ConditionParseError) -> ConditionExpression {
        var operands = [try parseUnary(depth: depth)]
        while current.kind == .and {
            _ = advance()
            operands.append(try parseUnary(depth: depth))
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    mutating func parseUnary(depth: Int) throws(ConditionParseError) -> ConditionExpression {
        switch current.kind {
        case .not:
            try checkDepth(depth + 1)
            _ = advance()
            return .not(try parseUnary(depth: depth + 1))
        case .leftParen:
            try checkDepth(depth + 1)
            _ = advance()
            let inner = try parseOr(depth: depth + 1)
            try expect(.rightParen, "`)`")
            return inner
        default:
            let start = current.start
            atomCount += 1
            if atomCount > Self.maximumAtoms {
                throw error(.tooManyAtoms, "more than \(Self.maximumAtoms) atoms in one condition", at: start)
            }
            return try parseAtom()
        }
    }

    func checkDepth(_ depth: Int) throws(ConditionParseError) {
        if depth > Self.maximumDepth {
            throw error(
                .nestingTooDeep,
                "parentheses and `!` nested deeper than \(Self.maximumDepth) levels",
                at: current.start
            )
        }
    }
}
