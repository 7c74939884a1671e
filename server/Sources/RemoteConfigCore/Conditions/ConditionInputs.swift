import Foundation

/// Which parts of a `FetchContext` some conditions read: lets a server build a fetch ETag
/// from only what can change the answer.
public struct ConditionInputs: Sendable, Hashable {
    /// A scalar field of the context.
    public struct Fields: OptionSet, Sendable, Hashable {
        public let rawValue: UInt16

        /// Creates a field set.
        public init(rawValue: UInt16) { self.rawValue = rawValue }

        public static let platform = Fields(rawValue: 1 << 0)
        public static let appId = Fields(rawValue: 1 << 1)
        public static let appVersion = Fields(rawValue: 1 << 2)
        public static let appBuild = Fields(rawValue: 1 << 3)
        public static let countryCode = Fields(rawValue: 1 << 4)
        public static let languageCode = Fields(rawValue: 1 << 5)
        public static let appInstanceId = Fields(rawValue: 1 << 6)
        public static let firstOpenTime = Fields(rawValue: 1 << 7)
        /// The server clock (`dateTime` atoms); see `timeBoundaries`.
        public static let now = Fields(rawValue: 1 << 8)
        public static let osVersion = Fields(rawValue: 1 << 9)
    }

    /// The scalar fields read.
    public var fields: Fields = []
    /// The `customSignals` keys read.
    public var customSignalKeys: Set<String> = []
    /// The user property keys read.
    public var userPropertyKeys: Set<String> = []
    /// The instants at which some `dateTime` atom changes value, ascending.
    public var timeBoundaries: [Date] = []

    /// Creates an empty set of inputs.
    public init() {}

    /// The inputs the given expressions read.
    public init(_ expressions: some Sequence<ConditionExpression>) {
        var boundaries = Set<Date>()
        for expression in expressions {
            for atom in expression.atoms { add(atom, boundaries: &boundaries) }
        }
        timeBoundaries = boundaries.sorted()
    }

    private mutating func add(_ source: StringSource) {
        switch source {
        case .appVersion: fields.insert(.appVersion)
        case .appBuild: fields.insert(.appBuild)
        case .osVersion: fields.insert(.osVersion)
        case .customSignal(let key): customSignalKeys.insert(key)
        case .userProperty(let key): userPropertyKeys.insert(key)
        }
    }

    private mutating func add(_ atom: ConditionAtom, boundaries: inout Set<Date>) {
        switch atom {
        case .platform: fields.insert(.platform)
        case .countryIn: fields.insert(.countryCode)
        case .languageIn: fields.insert(.languageCode)
        case .appId: fields.insert(.appId)
        case .versionCompare(let source, _, _), .stringMethod(let source, _, _), .stringEquality(let source, _, _),
            .numericCompare(let source, _, _):
            add(source)
        case .instanceIdIn, .percent: fields.insert(.appInstanceId)
        case .dateTime(_, let date):
            fields.insert(.now)
            boundaries.insert(date.instant)
        case .firstOpenTimestamp: fields.insert(.firstOpenTime)
        }
    }
}

extension CompiledTemplate {
    /// The inputs read by the conditions that some parameter's conditional value refers to.
    static func inputs(conditions: [CompiledCondition], usedConditions: Set<Int>) -> ConditionInputs {
        ConditionInputs(usedConditions.sorted().map { conditions[$0].expression })
    }
}
