import Foundation

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
