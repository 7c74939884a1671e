/// The answer of `remoteConfig:impact`: what a candidate template would change, compared with the published
/// one, for the app instances seen recently, estimated from the impact sample. Shared by the server (which
/// encodes it) and the admin client (which decodes it).
public struct ImpactReport: Codable, Sendable, Equatable {
    /// What the estimate rests on.
    public var sample: Sample
    /// One entry per parameter and change of answer (`from` → `to`) that at least one sampled instance sees.
    public var changes: [Change]
    /// The instances for which at least one parameter's answer changes.
    public var affected: Estimate
    /// Who would newly be required to update, and who no longer.
    public var forceUpdate: ForceUpdate
    /// The change's impact in one or two sentences, for people.
    public var summary: String

    /// Creates a report.
    public init(sample: Sample, changes: [Change], affected: Estimate, forceUpdate: ForceUpdate, summary: String) {
        self.sample = sample
        self.changes = changes
        self.affected = affected
        self.forceUpdate = forceUpdate
        self.summary = summary
    }

    /// The sample the estimate rests on.
    public struct Sample: Codable, Sendable, Equatable {
        /// Distinct app instances sampled (seen since `since`).
        public var instances: Int
        /// The start of the window, RFC 3339.
        public var since: String
        /// The estimated distinct app instances seen in the window; estimates are scaled to it.
        public var activeInstances: Int

        /// Creates the sample's description.
        public init(instances: Int, since: String, activeInstances: Int) {
            self.instances = instances
            self.since = since
            self.activeInstances = activeInstances
        }
    }

    /// An estimated number of active instances: the sample's share scaled, with the share's 95% half-width.
    public struct Estimate: Codable, Sendable, Equatable {
        /// Estimated active instances.
        public var instances: Int
        /// The share of the sampled instances.
        public var share: Double
        /// The 95% half-width of `share`.
        public var margin: Double

        /// Creates an estimate.
        public init(instances: Int, share: Double, margin: Double) {
            self.instances = instances
            self.share = share
            self.margin = margin
        }
    }

    /// One platform's part: estimated instances, and their share of that platform's sampled instances.
    public struct PlatformPart: Codable, Sendable, Equatable {
        /// Estimated active instances of the platform.
        public var instances: Int
        /// The share of the platform's sampled instances.
        public var share: Double

        /// Creates a platform's part.
        public init(instances: Int, share: Double) {
            self.instances = instances
            self.share = share
        }
    }

    /// One app version's part (estimated instances), `(none)` for callers that sent no version.
    public struct VersionPart: Codable, Sendable, Equatable {
        /// `IOS`, `ANDROID`, `WEB`, or `UNKNOWN` for callers that sent none.
        public var platform: String
        /// The app version as sent.
        public var version: String
        /// Estimated active instances.
        public var instances: Int

        /// Creates a version's part.
        public init(platform: String, version: String, instances: Int) {
            self.platform = platform
            self.version = version
            self.instances = instances
        }
    }

    /// A parameter whose answer changes from `from` to `to` (`nil`: the app's in-app default).
    public struct Change: Codable, Sendable, Equatable {
        /// The parameter key.
        public var parameter: String
        /// The value a fetch sends now, nil when it sends none.
        public var from: String?
        /// The value a fetch would send, nil when it would send none.
        public var to: String?
        /// Estimated active instances that would see the change.
        public var instances: Int
        /// Their share of the sampled instances.
        public var share: Double
        /// The 95% half-width of `share`.
        public var margin: Double
        /// By platform.
        public var byPlatform: [String: PlatformPart]
        /// By platform and version, most instances first.
        public var byVersion: [VersionPart]

        enum CodingKeys: String, CodingKey {
            case parameter, from, to, instances, share, margin, byPlatform, byVersion
        }

        /// Creates a change.
        public init(
            parameter: String, from: String?, to: String?, instances: Int, share: Double, margin: Double,
            byPlatform: [String: PlatformPart], byVersion: [VersionPart]
        ) {
            self.parameter = parameter
            self.from = from
            self.to = to
            self.instances = instances
            self.share = share
            self.margin = margin
            self.byPlatform = byPlatform
            self.byVersion = byVersion
        }

        /// Writes `from` and `to` as `null` when absent: an in-app default is an answer too.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(parameter, forKey: .parameter)
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
            try container.encode(instances, forKey: .instances)
            try container.encode(share, forKey: .share)
            try container.encode(margin, forKey: .margin)
            try container.encode(byPlatform, forKey: .byPlatform)
            try container.encode(byVersion, forKey: .byVersion)
        }
    }

    /// The force update parameter: instances whose answer becomes `"true"`, and those for which it stops being.
    public struct ForceUpdate: Codable, Sendable, Equatable {
        /// The parameter read as "update required" (default `require_force_update`).
        public var parameter: String
        /// Estimated active instances newly required to update.
        public var newlyRequired: Int
        /// Their share of the sampled instances.
        public var share: Double
        /// The 95% half-width of `share`.
        public var margin: Double
        /// Estimated active instances no longer required to update.
        public var noLongerRequired: Int
        /// The newly required, by platform.
        public var byPlatform: [String: PlatformPart]
        /// The newly required, by platform and version, most instances first.
        public var byVersion: [VersionPart]

        /// Creates the force update part.
        public init(
            parameter: String, newlyRequired: Int, share: Double, margin: Double, noLongerRequired: Int,
            byPlatform: [String: PlatformPart], byVersion: [VersionPart]
        ) {
            self.parameter = parameter
            self.newlyRequired = newlyRequired
            self.share = share
            self.margin = margin
            self.noLongerRequired = noLongerRequired
            self.byPlatform = byPlatform
            self.byVersion = byVersion
        }
    }
}
