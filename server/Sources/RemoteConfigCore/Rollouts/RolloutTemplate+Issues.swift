import Foundation

extension RolloutTemplate {
    /// `issues` of a template this rollout made, told as problems of the inputs the caller wrote: what is wrong
    /// with the conditional value it adds is wrong with `value`, what is wrong with its condition (first in the
    /// list) is wrong with `audience`, and a total of values over the limit is the value's doing, since the rollout
    /// adds no parameter. The generated condition name, which the caller never wrote, is left out of messages.
    public func attributing(_ issues: [ValidationIssue]) -> [ValidationIssue] {
        let valuePath = ".conditionalValues.\(conditionName)"
        return issues.map { issue in
            var told = issue
            if issue.field.contains(valuePath) {
                told.field = "value"
            } else if issue.field == "parameters", issue.reason == "LIMIT_EXCEEDED" {
                told.field = "value"
                told.message = issue.message + " with this value"
            } else if issue.field.hasPrefix("conditions[0].") {
                told.field = "audience"
            }
            told.message = told.message.replacingOccurrences(of: conditionName, with: "the rollout's condition")
            return told
        }
    }
}
