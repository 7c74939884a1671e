import Foundation

/// What an admin sets on a project's store link.
public struct StoreLinkSettings: Sendable, Equatable {
    public var enabled: Bool
    /// The App Store's numeric app id (`id=` of the lookup).
    public var appStoreId: String
    /// The storefront, two lowercase letters (`country=` of the lookup).
    public var country: String
    public var intervalSeconds: Int
    /// Target parameters and the store fields they receive, in the order given.
    public var parameters: [StoreLinkMapping]
    /// With approvals required, a sync's change request is approved at once.
    public var autoApprove: Bool
    /// A listing is published only once its `currentVersionReleaseDate` is this old (0: at once).
    public var releaseDelaySeconds: Int

    /// One day: Apple's lookup shows a version before every storefront offers it.
    public static let defaultReleaseDelay = 86_400

    public init(
        enabled: Bool, appStoreId: String, country: String, intervalSeconds: Int, parameters: [StoreLinkMapping],
        autoApprove: Bool, releaseDelaySeconds: Int = StoreLinkSettings.defaultReleaseDelay
    ) {
        self.enabled = enabled
        self.appStoreId = appStoreId
        self.country = country
        self.intervalSeconds = intervalSeconds
        self.parameters = parameters
        self.autoApprove = autoApprove
        self.releaseDelaySeconds = releaseDelaySeconds
    }
}
