/// The atoms: every element of API.md's table, with Firebase's spelling.
extension ConditionParser {
    private static let elements =
        "`true`, `false`, `device.…`, `app.…`, `dateTime`, `percent`, `version(…)`, `!` or `(`"

    mutating func parseAtom() throws(ConditionParseError) -> ConditionExpression {
        guard case .identifier(let name) = current.kind else { throw unexpected(expecting: Self.elements) }
        let nameToken = advance()
        switch name {
        case "true": return .literal(true)
        case "false": return .literal(false)
        case "device": return .atom(try parseDevice())
        case "app": return .atom(try parseApp())
        case "dateTime":
            let (op, _) = try expectComparison()
            try expectKeyword("dateTime")
            return .atom(.dateTime(op, try parseDateArguments()))
        case "percent": return .atom(try parsePercent())
        case "version":
            try expect(.leftParen, "`(`")
            let source = try parseStringSource()
            try expect(.rightParen, "`)`")
            let (op, _) = try expectComparison()
            let (version, _) = try expectString("a quoted version such as '1.2.0'")
            return .atom(.versionCompare(source, op, version))
        default:
            throw error("unknown element `\(name)`; expected \(Self.elements)", at: nameToken.start)
        }
    }

    private mutating func expectField(of parent: String, _ fields: [String]) throws(ConditionParseError) -> (
        String, Token
    ) {
        try expect(.dot, "`.`")
        let list = fields.map { "`\($0)`" }.joined(separator: ", ")
        guard case .identifier(let field) = current.kind else {
            throw unexpected(expecting: "a field of `\(parent)` (\(list))")
        }
        guard fields.contains(field) else {
            throw error("unknown field `\(parent).\(field)`; expected \(list)", at: current.start)
        }
        return (field, advance())
    }

    private mutating func parseDevice() throws(ConditionParseError) -> ConditionAtom {
        let (field, _) = try expectField(of: "device", ["os", "osVersion", "country", "language"])
        switch field {
        case "osVersion": return try parseSourceOperation(.osVersion, allowsScalarComparison: false)
        case "os":
            let op = try expectEquality()
            let (name, token) = try expectString("a quoted platform ('ios', 'android' or 'web')")
            guard let platform = Platform(caseInsensitive: name) else {
                throw error(
                    .invalidValue, "unknown platform '\(name)'; expected 'ios', 'android' or 'web'", at: token.start)
            }
            return .platform(op, platform)
        case "country":
            try expectKeyword("in")
            return .countryIn(try parseStringList().values)
        default:
            try expectKeyword("in")
            return .languageIn(try parseStringList().values)
        }
    }

    private static let appFields = [
        "id", "version", "build", "customSignal", "userProperty", "firebaseInstallationId", "instanceId",
        "firstOpenTimestamp",
    ]

    private mutating func parseApp() throws(ConditionParseError) -> ConditionAtom {
        let (field, _) = try expectField(of: "app", Self.appFields)
        switch field {
        case "id":
            let op = try expectEquality()
            return .appId(op, try expectString("a quoted app id").0)
        case "version": return try parseSourceOperation(.appVersion, allowsScalarComparison: false)
        case "build": return try parseSourceOperation(.appBuild, allowsScalarComparison: false)
        case "customSignal":
            return try parseSourceOperation(.customSignal(try parseKey()), allowsScalarComparison: true)
        case "userProperty":
            return try parseSourceOperation(.userProperty(try parseKey()), allowsScalarComparison: true)
        case "firebaseInstallationId", "instanceId":
            try expectKeyword("in")
            let (ids, start) = try parseStringList()
            if ids.count > Self.maximumInstanceIds {
                throw error(
                    .tooManyInstanceIds,
                    "more than \(Self.maximumInstanceIds) ids in `app.\(field) in [...]`",
                    at: start
                )
            }
            return .instanceIdIn(ids)
        default:
            let (op, _) = try expectComparison()
            // Firebase writes `> ('2026-01-01T00:00:00')`; `> dateTime(…)` is accepted too.
            if case .identifier("dateTime") = current.kind { _ = advance() }
            return .firstOpenTimestamp(op, try parseDateArguments())
        }
    }

    /// `['key']` after `app.customSignal` / `app.userProperty`.
    private mutating func parseKey() throws(ConditionParseError) -> String {
        try expect(.leftBracket, "`[`")
        let (key, _) = try expectString("a quoted key")
        try expect(.rightBracket, "`]`")
        return key
    }

    /// Inside `version(…)`: `app.version`, `app.build`, `app.customSignal['k']`, `app.userProperty['k']`,
    /// `device.osVersion`.
    private mutating func parseStringSource() throws(ConditionParseError) -> StringSource {
        if case .identifier("device") = current.kind {
            _ = advance()
            _ = try expectField(of: "device", ["osVersion"])
            return .osVersion
        }
        try expectKeyword("app")
        let (field, _) = try expectField(of: "app", ["version", "build", "customSignal", "userProperty"])
        switch field {
        case "version": return .appVersion
        case "build": return .appBuild
        case "customSignal": return .customSignal(try parseKey())
        default: return .userProperty(try parseKey())
        }
    }

    /// `.method([…])`, `.op(['v'])`, or for signals and user properties `op number` / `== 'text'`.
    private mutating func parseSourceOperation(
        _ source: StringSource,
        allowsScalarComparison: Bool
    ) throws(ConditionParseError) -> ConditionAtom {
        if allowsScalarComparison, case .comparison(let op) = current.kind {
            _ = advance()
            switch current.kind {
            case .number(let value):
                _ = advance()
                return .numericCompare(source, op, value)
            case .string(let text) where op == .equal || op == .notEqual:
                _ = advance()
                return .stringEquality(source, op == .equal ? .equal : .notEqual, text)
            default:
                throw unexpected(
                    expecting: op == .equal || op == .notEqual ? "a number or a quoted string" : "a number")
            }
        }
        guard current.kind == .dot else {
            throw unexpected(expecting: allowsScalarComparison ? "`.` or a comparison operator" : "`.`")
        }
        _ = advance()
        let methods = StringMethod.allCases.map { "`\($0.rawValue)`" }.joined(separator: ", ")
        switch current.kind {
        case .comparison(let op):
            _ = advance()
            try expect(.leftParen, "`(`")
            let (values, start) = try parseStringList()
            try expect(.rightParen, "`)`")
            guard values.count == 1 else {
                throw error("a version comparison takes exactly one version, e.g. (['2.1.0'])", at: start)
            }
            return .versionCompare(source, op, values[0])
        case .identifier(let name):
            guard let method = StringMethod(rawValue: name) else {
                throw error("unknown method `\(name)`; expected a comparison operator or \(methods)", at: current.start)
            }
            _ = advance()
            try expect(.leftParen, "`(`")
            let listStart = current.start
            let (values, _) = try parseStringList()
            try expect(.rightParen, "`)`")
            if method == .matches {
                for pattern in values {
                    do {
                        _ = try CompiledRegex(pattern)
                    } catch let regexError {
                        throw error(
                            .invalidValue,
                            "invalid regular expression '\(pattern)' (RE2 syntax: \(regexError.reason))", at: listStart)
                    }
                }
            }
            return .stringMethod(source, method, values)
        default:
            throw unexpected(expecting: "a comparison operator or \(methods)")
        }
    }

    private mutating func parsePercent() throws(ConditionParseError) -> ConditionAtom {
        var seed = ""
        if current.kind == .leftParen {
            _ = advance()
            seed = try expectString("a quoted seed").0
            try expect(.rightParen, "`)`")
        }
        if case .identifier("between") = current.kind {
            _ = advance()
            let low = try parsePercentValue()
            try expectKeyword("and")
            let highStart = current.start
            let high = try parsePercentValue()
            guard low <= high else {
                throw error(.invalidValue, "the upper bound must not be below the lower bound", at: highStart)
            }
            return .percent(seed: seed, .between(low, high))
        }
        guard case .comparison(let op) = current.kind, op != .equal && op != .notEqual else {
            throw unexpected(expecting: "`<`, `<=`, `>`, `>=` or `between`")
        }
        _ = advance()
        return .percent(seed: seed, .compare(op, try parsePercentValue()))
    }

    private mutating func parsePercentValue() throws(ConditionParseError) -> Double {
        let (value, token) = try expectNumber()
        guard value >= 0 && value <= 100 else {
            throw error(.invalidValue, "a percentage must be between 0 and 100", at: token.start)
        }
        return value
    }

    /// `('2026-12-01T00:00:00'[, 'Asia/Tokyo'])`.
    private mutating func parseDateArguments() throws(ConditionParseError) -> ConditionDate {
        try expect(.leftParen, "`(`")
        let (text, textToken) = try expectString("a quoted date-time such as '2026-12-01T00:00:00'")
        var zone: (String, Token)?
        if current.kind == .comma {
            _ = advance()
            zone = try expectString("a quoted IANA time zone such as 'Asia/Tokyo'")
        }
        try expect(.rightParen, "`)`")
        switch DateTimeLiteral.resolve(text, timeZone: zone?.0) {
        case .success(let date): return date
        case .failure(.badDateTime(let message)): throw error(.invalidValue, message, at: textToken.start)
        case .failure(.badTimeZone(let message)):
            throw error(.invalidValue, message, at: zone?.1.start ?? textToken.start)
        }
    }
}
