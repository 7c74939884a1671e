import Foundation

/// What a policy's last check found.
public struct MinimumVersionPolicyStatus: Sendable, Equatable {
    /// What a check decided.
    public enum Result: String, Sendable, CaseIterable {
        /// Published the raise.
        case raised = "RAISED"
        /// Opened a change request for it, or one it opened is still open.
        case proposed = "PROPOSED"
        /// The recommendation is not newer than the minimum.
        case unchanged = "UNCHANGED"
        /// Fewer instances were seen than `minActiveInstances`, or none, or nothing is published.
        case notEnoughData = "NOT_ENOUGH_DATA"
        /// A newer minimum is recommended, but `neverAbove` or `keepBehindLatest` stops it (or the template
        /// cannot take it: the parameter or condition is gone).
        case limited = "LIMITED"
    }

    public var lastCheckTime: Date?
    public var lastResult: Result?
    /// The version the fleet recommended at the last check.
    public var lastRecommendation: String?
    /// The last check's figures and reason, in words.
    public var lastDetail: String?
    /// The change request the policy opened last.
    public var openRequestId: Int64?
    public var nextCheckTime: Date

    public init(
        lastCheckTime: Date?, lastResult: Result?, lastRecommendation: String?, lastDetail: String?,
        openRequestId: Int64?, nextCheckTime: Date
    ) {
        self.lastCheckTime = lastCheckTime
        self.lastResult = lastResult
        self.lastRecommendation = lastRecommendation
        self.lastDetail = lastDetail
        self.openRequestId = openRequestId
        self.nextCheckTime = nextCheckTime
    }
}
