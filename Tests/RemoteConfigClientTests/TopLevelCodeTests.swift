import Foundation
import Testing

/// Top-level code (a script, an executable's `main.swift`) chooses overloads differently from a function, so this
/// compiles a real `main.swift` against the SDK's built module and runs it.
///
/// Test files cannot hold top-level statements, hence `swiftc`. It needs the toolchain and the debug build of the
/// SDK (`swift build --build-tests`); where either is missing the test is skipped rather than failed.
@Suite struct TopLevelCodeTests {
    /// A script as an app developer writes it: no function around `try await`.
    static let script = #"""
        import Foundation
        import RemoteConfigClient
        #if canImport(FoundationNetworking)
        import FoundationNetworking
        #endif

        final class CountingTransport: HTTPTransport, @unchecked Sendable {
            private let lock = NSLock()
            private var sent = 0
            var count: Int { lock.withLock { sent } }
            func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
                lock.withLock { sent += 1 }
                let body = Data(#"{"entries":{"greeting":"hello"},"state":"UPDATE","templateVersion":"1"}"#.utf8)
                return (body, HTTPURLResponse(url: request.url!, statusCode: 200, httpVersion: nil, headerFields: [:])!)
            }
            func stream(_ request: URLRequest) async throws -> (HTTPURLResponse, AsyncThrowingStream<Data, any Error>) {
                throw URLError(.unsupportedURL)
            }
        }

        let transport = CountingTransport()
        let remoteConfig = RemoteConfig(
            serverURL: URL(string: "https://config.example.com")!, project: "my-app", clientKey: "k",
            app: AppIdentity(appId: "com.example.shop", platform: .ios, version: "1.0", build: "1"),
            storageDirectory: URL(fileURLWithPath: CommandLine.arguments[1]), transport: transport)
        remoteConfig.configSettings.minimumFetchInterval = 0
        try await remoteConfig.fetch()
        print("fetch: \(transport.count)")
        try await remoteConfig.fetch(withExpirationDuration: 0)
        print("fetch(withExpirationDuration:): \(transport.count)")
        let changed = try await remoteConfig.activate()
        print("activate: \(changed) \(remoteConfig["greeting"].stringValue)")
        let status = try await remoteConfig.fetchAndActivate()
        print("fetchAndActivate: \(transport.count) \(status == .successFetchedFromRemote)")
        """#

    /// The build directory this test binary was built in (so a release run links release objects), when the SDK
    /// module is there.
    static var buildDirectory: URL? {
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let candidates = [
            executable.deletingLastPathComponent(),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug"),
        ]
        return candidates.first {
            FileManager.default.fileExists(
                atPath: $0.appendingPathComponent("Modules/RemoteConfigClient.swiftmodule").path)
        }
    }

    /// `swiftc` next to the `swift` on `PATH`.
    static var swiftc: URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    @Test(.enabled(if: buildDirectory != nil && swiftc != nil && canLinkObjectFiles))
    func tryAwaitInTopLevelCodeCallsTheAsyncForms() throws {
        let build = try #require(Self.buildDirectory)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("rc-top-level-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let source = work.appendingPathComponent("main.swift")
        try Self.script.write(to: source, atomically: true, encoding: .utf8)

        // The SDK's objects and those of the versions module it uses.
        let objects = try ["RemoteConfigClient.build", "RemoteConfigVersions.build"].flatMap { folder in
            try FileManager.default.contentsOfDirectory(
                at: build.appendingPathComponent(folder), includingPropertiesForKeys: nil
            ).filter { $0.pathExtension == "o" }.map(\.path)
        }
        let binary = work.appendingPathComponent("script")
        let compile = try Self.run(
            try #require(Self.swiftc),
            ["-swift-version", "6", "-I", build.appendingPathComponent("Modules").path, source.path]
                + objects + ["-o", binary.path])
        #expect(compile.status == 0, "swiftc: \(compile.output)")
        #expect(!compile.output.contains("no 'async' operations occur within 'await'"), "\(compile.output)")
        guard compile.status == 0 else { return }

        let state = work.appendingPathComponent("state").path
        let run = try Self.run(binary, [state])
        #expect(run.status == 0, "\(run.output)")
        #expect(
            run.output.split(separator: "\n").map(String.init) == [
                "fetch: 1", "fetch(withExpirationDuration:): 2", "activate: true hello", "fetchAndActivate: 3 true",
            ])
    }

    /// Linking the SDK's object files by hand is how SwiftPM does it on Linux; on Darwin it needs the SDK path too.
    static var canLinkObjectFiles: Bool {
        #if os(Linux)
            return true
        #else
            return false
        #endif
    }

    static func run(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
