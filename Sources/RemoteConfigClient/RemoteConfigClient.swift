import Foundation

/// The Swift SDK for apps; filled in by the client SDK issue.
public enum RemoteConfigClientInfo {
    /// The SDK's version, sent as `sdkVersion`.
    public static let sdkVersion = "remote-config-swift/0.1"
}
