// swift-tools-version:6.2
import PackageDescription

// Our own Swift targets build without a warning: a warning is an error in them (dependencies keep theirs).
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

// The server. It lives in a package of its own so that an app depending on the SDK (the repository root's
// package) resolves none of these dependencies; it uses the SDK from the root for its integration tests.
let package = Package(
    name: "remote-config-server",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "remote-config", targets: ["remote-config"])
    ],
    dependencies: [
        // The SDK, for SDKIntegrationTests. Named, because a path dependency is otherwise known by its folder's
        // name, which is whatever the clone was called.
        .package(name: "remote-config", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        // JOSE for single sign-on: ID tokens verified against the provider's JWKS (no hand-written signature checks).
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        // The Model Context Protocol: the assistants' server (`/mcp` and `remote-config mcp`).
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
    ],
    targets: [
        // RE2 (Debian's libre2-dev, Homebrew's re2): its build flags come from pkg-config, its linking from here.
        .systemLibrary(
            name: "CRE2System", pkgConfig: "re2", providers: [.apt(["libre2-dev"]), .brew(["re2"])]),
        // A few C functions over RE2's C++ API: linear-time regular expressions for `.matches([…])`.
        .target(name: "CRE2Shim", dependencies: ["CRE2System"]),
        // zlib (Debian's zlib1g-dev; macOS has it in its SDK): the gzip form of client answers.
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        // glibc's allocator controls (libc6-dev): memory the budgets let go goes back to the system.
        .systemLibrary(name: "CMalloc"),
        // SHA-256 with the x86 SHA extensions, for percent buckets (swift-crypto where they are missing).
        .target(name: "CSHA256"),
        // Pure domain: templates, the condition language, evaluation. No I/O.
        .target(
            name: "RemoteConfigCore",
            dependencies: [
                "CRE2Shim",
                "CSHA256",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "RemoteConfigVersions", package: "remote-config"),
            ],
            swiftSettings: strict
        ),
        // The admin API's request and response bodies as Codable types, shared by the server, the command line's
        // admin client and the tests. Template payloads stay `JSONValue` (Core), where key order and exact numbers matter.
        .target(
            name: "RemoteConfigAPI",
            dependencies: ["RemoteConfigCore"],
            swiftSettings: strict
        ),
        // PostgreSQL: migrations, stores, embedded cluster, notifications.
        .target(
            name: "RemoteConfigStore",
            dependencies: [
                // Insights: the sketches a flush and a read merge.
                "RemoteConfigCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // Only to recognise the pool's errors (shut down, request cancelled) as "unavailable"; imported by
                // Database/ConnectionPoolErrors.swift alone.
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            resources: [.copy("Migrations")],
            swiftSettings: strict
        ),
        // HTTP: Hummingbird application, controllers, auth, error mapping.
        .target(
            name: "RemoteConfigServer",
            dependencies: [
                "RemoteConfigAPI",
                "RemoteConfigCore",
                "RemoteConfigStore",
                "CZlib",
                "CMalloc",
                .product(name: "Hummingbird", package: "hummingbird"),
                // The HTTP/1.1 channel, to give connections a small first read buffer.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // Only to recognise a client that hangs up mid-body (`HTTPParserError.invalidEOFState`).
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The fetch fast path and connection timeouts work on HTTP parts in the channel pipeline.
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Crypto", package: "swift-crypto"),
                // TLS for webhook deliveries to https:// URLs.
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "JWTKit", package: "jwt-kit"),
                "RemoteConfigMCP",
                .product(name: "MCP", package: "swift-sdk"),
            ],
            resources: [.copy("Resources/openapi.yaml"), .copy("Resources/console")],
            swiftSettings: strict
        ),
        // The assistants' tools: one table of MCP tools and resources, each an admin API call, shared by the server's
        // `/mcp` endpoint and the command line's `remote-config mcp` (stdio). No server code: it calls through `AdminCaller`.
        .target(
            name: "RemoteConfigMCP",
            dependencies: [
                // JSONValue, which keeps a template's key order through propose_change's edits.
                "RemoteConfigCore",
                .product(name: "MCP", package: "swift-sdk"),
            ],
            swiftSettings: strict
        ),
        // The admin client: the admin API over Foundation's URLSession, for the command line (no server code).
        .target(
            name: "RemoteConfigAdminClient",
            dependencies: ["RemoteConfigAPI", "RemoteConfigCore"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "remote-config",
            dependencies: [
                "RemoteConfigAPI",
                "RemoteConfigServer",
                "RemoteConfigStore",
                "RemoteConfigAdminClient",
                "RemoteConfigCore",
                "RemoteConfigMCP",
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The PKCE verifier's challenge of `login`'s loopback sign-in.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "ConditionBenchmark",
            dependencies: ["RemoteConfigCore"],
            path: "Benchmarks/ConditionBenchmark",
            swiftSettings: strict
        ),
        // What the impact sample's keyed hash costs a counted answer, beside the public one and HMAC.
        .executableTarget(
            name: "SampleHashBenchmark",
            dependencies: ["RemoteConfigCore", .product(name: "Crypto", package: "swift-crypto")],
            path: "Benchmarks/SampleHashBenchmark",
            swiftSettings: strict
        ),
        // Test-only helpers: the throwaway PostgreSQL cluster, per-test databases, running the built binary.
        .target(
            name: "RemoteConfigTestSupport",
            dependencies: [
                "RemoteConfigAPI",
                "RemoteConfigCore",
                "RemoteConfigStore",
                "RemoteConfigServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/RemoteConfigTestSupport",
            swiftSettings: strict
        ),
        // Seeded generators of random inputs (template histories), shared by the Core and the server tests.
        .target(
            name: "RemoteConfigTestHistories",
            dependencies: ["RemoteConfigCore"],
            path: "Tests/RemoteConfigTestHistories",
            swiftSettings: strict
        ),
        .testTarget(
            name: "RemoteConfigCoreTests",
            dependencies: [
                "RemoteConfigCore", "RemoteConfigTestHistories", "CSHA256",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "RemoteConfigVersions", package: "remote-config"),
            ],
            swiftSettings: strict),
        .testTarget(
            name: "RemoteConfigStoreTests",
            dependencies: [
                "RemoteConfigStore",
                "RemoteConfigTestSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "RemoteConfigServerTests",
            dependencies: [
                "RemoteConfigAPI",
                "RemoteConfigServer",
                "RemoteConfigStore",
                "RemoteConfigCore",
                .product(name: "RemoteConfigClient", package: "remote-config"),
                "RemoteConfigTestSupport",
                "RemoteConfigTestHistories",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // To check webhook signatures independently of the server's own signing code.
                .product(name: "Crypto", package: "swift-crypto"),
                // RSA keys made at test time for Google Play service accounts.
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            // Read by path (TemplateFixtures), not bundled.
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6],
    // RE2 from 2023 on (Homebrew's) needs C++17.
    cxxLanguageStandard: .cxx17
)
