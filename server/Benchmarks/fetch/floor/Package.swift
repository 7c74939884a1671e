// swift-tools-version:6.2
import PackageDescription

// The SwiftNIO floor: a bare HTTP/1.1 server answering fixed bytes, to measure what SwiftNIO alone costs per
// request on a machine, beside nginx and remote-config. A package of its own, so the server's build does not
// grow; swift-nio at the version the server's package uses.
let package = Package(
    name: "nio-floor",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2")
    ],
    targets: [
        .executableTarget(
            name: "nio-floor",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: [.treatAllWarnings(as: .error)]
        )
    ]
)
