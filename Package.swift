// swift-tools-version:6.0
import PackageDescription

// The Swift SDK for apps, and nothing else: no dependencies, so an app that adds this repository resolves no
// other package. The server is the package in `server/`.
let package = Package(
    name: "remote-config",
    // What the SDK's APIs allow (async URLSession, Foundation's ISO 8601 and Codable); see docs/sdk.md.
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "RemoteConfigClient", targets: ["RemoteConfigClient"])
    ],
    targets: [
        // Foundation only (FoundationNetworking on Linux).
        .target(name: "RemoteConfigClient"),
        .testTarget(name: "RemoteConfigClientTests", dependencies: ["RemoteConfigClient"]),
    ],
    swiftLanguageModes: [.v6]
)
