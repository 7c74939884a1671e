/// Splits an expression into tokens; the whole input is tokenized before parsing.
struct Lexer {
    private let scalars: [Unicode.Scalar]
    private var index = 0

    init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    /// Produces every token, ending with `.end`, or the first lexical error.
    mutating func tokenize() throws(ConditionParseError) -> [Token] {
        var tokens: [Token] = []
        while true {
            let token = try next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func error(_ message: String, at position: Int) -> ConditionParseError {
        ConditionParseError(kind: .syntax, position: position, message: message)
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar.properties.isAlphabetic || scalar == "_")
    }

    private static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || ("0"..."9").contains(scalar)
    }

    private static func isDigit(_ scalar: Unicode.Scalar?) -> Bool {
        guard let scalar else { return false }
        return ("0"..."9").contains(scalar)
    }

    private mutating func next() throws(ConditionParseError) -> Token {
        while let scalar = peek(), scalar.properties.isWhitespace { index += 1 }
        let start = index
        guard let scalar = peek() else { return Token(kind: .end, start: start, end: start) }
        func single(_ kind: Token.Kind, length: Int = 1) -> Token {
            index += length
            return Token(kind: kind, start: start, end: index)
        }
        switch scalar {
        case ".": return single(.dot)
        case "(": return single(.leftParen)
        case ")": return single(.rightParen)
        case "[": return single(.leftBracket)
        case "]": return single(.rightBracket)
        case ",": return single(.comma)
        case "=":
            guard peek(1) == "=" else { throw error("expected `==` (a single `=` is not an operator)", at: start) }
            return single(.comparison(.equal), length: 2)
        case "!": return peek(1) == "=" ? single(.comparison(.notEqual), length: 2) : single(.not)
        case "<": return peek(1) == "=" ? single(.comparison(.lessOrEqual), length: 2) : single(.comparison(.less))
        case ">":
            return peek(1) == "=" ? single(.comparison(.greaterOrEqual), length: 2) : single(.comparison(.greater))
        case "&":
            guard peek(1) == "&" else { throw error("expected `&&`", at: start) }
            return single(.and, length: 2)
        case "|":
            guard peek(1) == "|" else { throw error("expected `||`", at: start) }
            return single(.or, length: 2)
        case "'", "\"": return try lexString(quote: scalar)
        case "-" where Self.isDigit(peek(1)), _ where Self.isDigit(scalar): return try lexNumber()
        case _ where Self.isIdentifierStart(scalar):
            var name = String.UnicodeScalarView()
            while let part = peek(), Self.isIdentifierPart(part) {
                name.append(part)
                index += 1
            }
            return Token(kind: .identifier(String(name)), start: start, end: index)
        default:
            throw error("unexpected character `\(Character(scalar))`", at: start)
        }
    }

    /// Strings use `'…'` or `"…"`. A backslash escapes only the quote and itself; any other
    /// backslash is kept, so regular expressions like `'^\d+\.'` need no doubling.
    private mutating func lexString(quote: Unicode.Scalar) throws(ConditionParseError) -> Token {
        let start = index
        index += 1
        var text = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else { throw error("unterminated string (missing `\(quote)`)", at: start) }
            index += 1
            if scalar == quote { return Token(kind: .string(String(text)), start: start, end: index) }
            if scalar == "\\", let escaped = peek(), escaped == quote || escaped == "\\" {
                text.append(escaped)
                index += 1
            } else {
                text.append(scalar)
            }
        }
    }

    private mutating func lexNumber() throws(ConditionParseError) -> Token {
        let start = index
        var text = ""
        if peek() == "-" {
            text.append("-")
            index += 1
        }
        while let digit = peek(), Self.isDigit(digit) {
            text.unicodeScalars.append(digit)
            index += 1
        }
        if peek() == ".", Self.isDigit(peek(1)) {
            text.append(".")
            index += 1
            while let digit = peek(), Self.isDigit(digit) {
                text.unicodeScalars.append(digit)
                index += 1
            }
        }
        if let next = peek(), Self.isIdentifierPart(next) {
            throw error("unexpected character `\(Character(next))` in number", at: index)
        }
        guard let value = Double(text), value.isFinite else { throw error("invalid number", at: start) }
        return Token(kind: .number(value), start: start, end: index)
    }
}
