import Foundation

/// Facts about the Swift SDK itself.
public enum RemoteConfigClientInfo {
    /// The SDK's version, sent as `sdkVersion`.
    public static let sdkVersion = "remote-config-swift/1.0"
}
