/// What a promotion asks for.
public struct PromotionRequest: Sendable, Equatable {
    /// The parameters to promote; nil: every parameter of source, target or base except local ones.
    ///
    /// A key given here is "named explicitly": it is promoted even over a change the target made since the
    /// base, and a key the source lacks is removed from the target.
    public var parameters: [String]?
    /// Whether the source wins over every change the target made since the base (hotfixes, conflicts).
    public var overwriteTargetChanges: Bool
    /// The source project's localParameters: never sent, never changed in the target.
    public var localParameters: Set<String>

    /// Creates a request; the default promotes every difference that does not overwrite a target change.
    public init(parameters: [String]? = nil, overwriteTargetChanges: Bool = false, localParameters: Set<String> = []) {
        self.parameters = parameters
        self.overwriteTargetChanges = overwriteTargetChanges
        self.localParameters = localParameters
    }

    /// Whether `key` was named in an explicit list of parameters.
    public func names(_ key: String) -> Bool {
        parameters?.contains(key) ?? false
    }
}

/// How a parameter differs between source, target and base.
public enum PromotionStatus: String, Sendable, CaseIterable {
    /// Source and target are equal: nothing to do.
    case unchanged = "UNCHANGED"
    /// The target still has the base's parameter (or there is no base): promoted.
    case sourceChanged = "SOURCE_CHANGED"
    /// The source still has the base's parameter, the target changed it (a hotfix): kept unless asked.
    case targetChanged = "TARGET_CHANGED"
    /// Both changed it since the base: a conflict unless named or overwritten.
    case bothChanged = "BOTH_CHANGED"
    /// One of the source's local parameters: never promoted.
    case local = "LOCAL"
}

/// One parameter of the three-way table: its status, whether it is promoted, and its three copies.
public struct PromotedParameter: Sendable, Equatable {
    /// The parameter key.
    public let key: String
    /// How source, target and base differ.
    public let status: PromotionStatus
    /// Whether the result takes the source's parameter (or its absence).
    public let promoted: Bool
    /// The source's parameter; nil when the source lacks it.
    public let source: Parameter?
    /// The target's parameter; nil when the target lacks it.
    public let target: Parameter?
    /// The base's parameter; nil without a base or when the base lacks it.
    public let base: Parameter?
}

/// What a promotion does to a condition of the source or the target.
public enum PromotionConditionStatus: String, Sendable {
    /// Carried from the source; the target has it with the same expression.
    case same = "SAME"
    /// Carried from the source: new to the target, or replacing another expression nothing kept uses.
    case carried = "CARRIED"
    /// Carrying it would change a parameter kept from the target (its expression or its precedence).
    case conflict = "CONFLICT"
    /// The target's, still used by a parameter kept from the target.
    case kept = "KEPT"
    /// The target's, which no parameter of the result uses any more.
    case dropped = "DROPPED"
}

/// One condition of the promotion's table, with its expression on both sides.
public struct PromotedCondition: Sendable, Equatable {
    /// The condition name.
    public let name: String
    /// What the promotion does with it.
    public let status: PromotionConditionStatus
    /// The source's expression; nil when the source lacks the condition.
    public let sourceExpression: String?
    /// The target's expression; nil when the target lacks the condition.
    public let targetExpression: String?
}

/// Why a promotion cannot be done as asked: the reasons of a 409 `ABORTED` answer.
public struct PromotionConflict: Sendable, Equatable {
    /// The error reason the API answers with.
    public enum Reason: String, Sendable {
        /// A parameter both sides changed since the base.
        case parameter = "PROMOTION_CONFLICT"
        /// A carried condition that would change a parameter kept from the target.
        case condition = "CONDITION_CONFLICT"
    }

    /// The parameter key or condition name.
    public let key: String
    /// Which kind of conflict.
    public let reason: Reason
    /// What a person reads: what differs and how to resolve it.
    public let message: String
}

/// The outcome of a promotion: the three-way table, the conditions, the conflicts and the result.
public struct PromotionPlan: Sendable {
    /// Every considered key, sorted by key.
    public let parameters: [PromotedParameter]
    /// The result's conditions in the result's order, then the target's dropped ones in the target's order.
    public let conditions: [PromotedCondition]
    /// Parameter conflicts sorted by key, then condition conflicts.
    public let conflicts: [PromotionConflict]
    /// The target after the promotion; nil when there are conflicts.
    public let result: RemoteConfigTemplate?
}
