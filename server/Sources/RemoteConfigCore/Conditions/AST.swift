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

/// The platforms a caller can report (`platform` in a fetch, `device.os` in conditions).
public enum Platform: String, Sendable, Hashable, CaseIterable {
    case ios = "IOS"
    case android = "ANDROID"
    case web = "WEB"

    /// Reads `IOS`, `ios`, `Ios`, …
    public init?(caseInsensitive name: String) {
        self.init(rawValue: name.uppercased())
    }

    /// The spelling used in condition expressions (`ios`, `android`, `web`).
    public var conditionName: String { rawValue.lowercased() }
}

/// `==` or `!=`.
public enum EqualityOperator: String, Sendable, Hashable {
    case equal = "=="
    case notEqual = "!="
}

/// The six ordering operators.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    /// Applies the operator to an ordering result.
    @inlinable
    public func holds<T: Comparable>(_ lhs: T, _ rhs: T) -> Bool {
        switch self {
        case .equal: return lhs == rhs
        case .notEqual: return lhs != rhs
        case .less: return lhs < rhs
        case .lessOrEqual: return lhs <= rhs
        case .greater: return lhs > rhs
        case .greaterOrEqual: return lhs >= rhs
        }
    }
}

/// A caller-supplied text that string methods and version comparisons read.
public enum StringSource: Sendable, Hashable {
    /// `app.version`, from the request's `appVersion`.
    case appVersion
    /// `app.build`, from the request's `appBuild`.
    case appBuild
    /// `device.osVersion`, from the request's `osVersion`.
    case osVersion
    /// `app.customSignal['key']`.
    case customSignal(String)
    /// `app.userProperty['key']`.
    case userProperty(String)
}

/// The string methods: `.contains([…])`, `.notContains([…])`, `.exactlyMatches([…])`, `.matches([…])`.
public enum StringMethod: String, Sendable, Hashable, CaseIterable {
    case contains
    case notContains
    case exactlyMatches
    case matches
}

/// How a `percent` atom bounds the caller's bucket, in percent (0...100, decimals allowed).
public enum PercentRange: Sendable, Hashable {
    /// `percent <op> N` with `<`, `<=`, `>` or `>=`.
    case compare(ComparisonOperator, Double)
    /// `percent between low and high`: low exclusive, high inclusive.
    case between(Double, Double)
}

/// One comparison in a condition.
public enum ConditionAtom: Sendable, Hashable {
    /// `device.os == 'ios'`, `device.os != 'android'`.
    case platform(EqualityOperator, Platform)
    /// `device.country in ['us', 'gb']`; the codes as written.
    case countryIn([String])
    /// `device.language in ['en', 'pt-BR']`; the tags as written.
    case languageIn([String])
    /// `app.id == 'com.example.shop'`.
    case appId(EqualityOperator, String)
    /// `app.version.>=(['2.1.0'])`, `version(app.customSignal['sdk']) < '1.2.0'`.
    case versionCompare(StringSource, ComparisonOperator, String)
    /// `app.build.contains(['rc'])`, `app.customSignal['plan'].matches(['^pro'])`.
    case stringMethod(StringSource, StringMethod, [String])
    /// `app.customSignal['plan'] == 'pro'` (our addition: plain string equality).
    case stringEquality(StringSource, EqualityOperator, String)
    /// `app.customSignal['cart'] >= 3`.
    case numericCompare(StringSource, ComparisonOperator, Double)
    /// `app.firebaseInstallationId in […]` / `app.instanceId in […]`, against `appInstanceId`.
    case instanceIdIn([String])
    /// `dateTime >= dateTime('2026-12-01T00:00:00', 'Asia/Tokyo')`, against the server's clock.
    case dateTime(ComparisonOperator, ConditionDate)
    /// `app.firstOpenTimestamp > ('2026-01-01T00:00:00')`, against the request's `firstOpenTime`.
    case firstOpenTimestamp(ComparisonOperator, ConditionDate)
    /// `percent('seed') between 10 and 20`; the seed is empty for plain `percent`.
    case percent(seed: String, PercentRange)
}

/// A date-time literal: the text and zone as written, and the instant they denote.
public struct ConditionDate: Sendable, Hashable {
    /// The local date-time text, e.g. `2026-12-01T00:00:00`.
    public var text: String
    /// The IANA zone, or `nil` for UTC.
    public var timeZone: String?
    /// The instant the text denotes in that zone.
    public var instant: Date

    /// Creates a date literal.
    public init(text: String, timeZone: String?, instant: Date) {
        self.text = text
        self.timeZone = timeZone
        self.instant = instant
    }
}
