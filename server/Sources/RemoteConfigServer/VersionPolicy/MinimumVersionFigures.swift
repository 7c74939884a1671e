import Foundation
import RemoteConfigCore
import RemoteConfigStore

extension MinimumVersionPolicyCheck {
    /// A raise's figures, as the version's description, the check's status, and the audit entry give them.
    struct Figures {
        let settings: MinimumVersionPolicySettings
        /// The minimum before, when it was a version.
        let from: String?
        let raise: MinimumVersionFleet.Blocked
        let fleet: MinimumVersionFleet

        /// What it raises, on which platform, and whom that blocks.
        var sentence: String {
            let slot = settings.condition.map { " (condition \($0))" } ?? ""
            let unknown =
                fleet.unknownInstances > 0
                ? ", \(Self.percent(fleet.unknownShare)) of unknown version counted as blocked" : ""
            return "\(settings.parameter)\(slot) \(from ?? "(none)") → \(raise.version) on \(settings.platform): "
                + "blocks \(Self.percent(raise.share)) (\(raise.instances) of \(fleet.activeInstances) active "
                + "instances in 7 days\(unknown); at most \(Self.percent(settings.maxBlockedShare)))"
        }

        /// The version's or change request's description, within its limit.
        var description: String {
            TextLimits.clippedDescription("Minimum version policy: \(sentence)")
        }

        /// The audit entry's detail.
        var audit: [String: String] {
            var detail = [
                "platform": settings.platform, "parameter": settings.parameter, "to": raise.version,
                "blockedShare": "\(InsightsController.rounded(raise.share))",
                "blockedInstances": "\(raise.instances)", "activeInstances": "\(fleet.activeInstances)",
                "unknownShare": "\(InsightsController.rounded(fleet.unknownShare))",
                "maxBlockedShare": "\(settings.maxBlockedShare)", "action": settings.action.rawValue,
            ]
            if let from { detail["from"] = from }
            if let condition = settings.condition { detail["condition"] = condition }
            return detail
        }

        /// `1.8%`: a share as people read it, to a tenth of a percent.
        static func percent(_ share: Double) -> String {
            let tenths = (share * 1000).rounded() / 10
            return tenths == tenths.rounded() ? "\(Int(tenths))%" : "\(tenths)%"
        }
    }
}
