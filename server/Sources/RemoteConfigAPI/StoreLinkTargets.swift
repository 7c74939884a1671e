/// A store link's `parameters`: which STRING parameter receives which store field, as a JSON object in the order
/// the link was saved with (`{"latest_version": "version", …}`).
public struct StoreLinkTargets: Codable, Sendable, Equatable {
    /// Parameter key and store field, in order.
    public var targets: [Target]

    /// One parameter filled from one store field.
    public struct Target: Sendable, Equatable {
        public var parameter: String
        /// `version`, `minimumOsVersion`, `releaseNotes`, …
        public var field: String

        public init(parameter: String, field: String) {
            self.parameter = parameter
            self.field = field
        }
    }

    public init(_ targets: [Target] = []) {
        self.targets = targets
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        targets = try container.allKeys.map { key in
            Target(parameter: key.stringValue, field: try container.decode(String.self, forKey: key))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for target in targets { try container.encode(target.field, forKey: AnyKey(stringValue: target.parameter)) }
    }
}
