// swift-tools-version:6.0
import PackageDescription

// The Swift SDK for apps, and nothing else: no dependencies, so an app that adds this repository resolves no
// other package. The server is the package in `server/`.
let package = Package(
    name: "remote-config",
    // What the SDK's APIs allow (async URLSession, Foundation's ISO 8601 and Codable); see docs/sdk.md.
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8)],
    products: [
        .library(name: "RemoteConfigClient", targets: ["RemoteConfigClient"]),
        // Version comparison as the server's conditions do it; the server's Core uses this very module, so the
        // SDK's force-update decisions and the server's `app.version` conditions cannot disagree.
        .library(name: "RemoteConfigVersions", targets: ["RemoteConfigVersions"]),
    ],
    targets: [
        // The standard library only.
        .target(name: "RemoteConfigVersions"),
        // Foundation only (FoundationNetworking on Linux).
        .target(name: "RemoteConfigClient", dependencies: ["RemoteConfigVersions"]),
        // The shared table of version comparisons (Tests/Fixtures/version-comparisons.json), for tests only.
        .target(name: "VersionTableFixture", path: "Tests/VersionTableFixture"),
        .testTarget(name: "RemoteConfigVersionsTests", dependencies: ["RemoteConfigVersions", "VersionTableFixture"]),
        .testTarget(
            name: "RemoteConfigClientTests",
            dependencies: ["RemoteConfigClient", "RemoteConfigVersions", "VersionTableFixture"]),
    ],
    swiftLanguageModes: [.v6]
)
