import Foundation
import NIOConcurrencyHelpers
import RemoteConfigClient
import RemoteConfigTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Swift SDK against a real server (embedded PostgreSQL, a real loopback port).
@Suite struct SDKIntegrationTests {
    /// URLSession, recording the status and `Content-Encoding` of every answer.
    final class RecordingTransport: HTTPTransport {
        let inner = URLSessionTransport()
        let statuses = NIOLockedValueBox<[Int]>([])
        let encodings = NIOLockedValueBox<[String?]>([])

        func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
            let (data, response) = try await inner.send(request)
            statuses.withLockedValue { $0.append(response.statusCode) }
            encodings.withLockedValue { $0.append(response.value(forHTTPHeaderField: "Content-Encoding")) }
            return (data, response)
        }

        func stream(_ request: URLRequest) async throws -> (HTTPURLResponse, AsyncThrowingStream<Data, any Error>) {
            try await inner.stream(request)
        }
    }

    static func sdk(
        port: Int, key: String, version: String, directory: URL, transport: any HTTPTransport = URLSessionTransport()
    ) -> RemoteConfig {
        RemoteConfig(
            serverURL: URL(string: "http://127.0.0.1:\(port)")!, project: "shop-app", clientKey: key,
            app: AppIdentity(appId: "com.example.shop", platform: .ios, version: version, build: "1"),
            storageDirectory: directory, transport: transport)
    }

    static func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("rc-sdk-\(UUID().uuidString)")
    }

    @Test func defaultsFetchActivateThrottle304AndPersistence() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await app.publish("shop-app", TemplateFixtures.readmeForceUpdateValue)
            let transport = RecordingTransport()
            let config = Self.sdk(
                port: app.port, key: key.secret, version: "2.0.0", directory: directory, transport: transport)
            config.setDefaults(["current_version": "1.0.0", "welcome": "hello"])

            // Before any fetch: the defaults.
            #expect(config.configValue(forKey: "current_version").stringValue == "1.0.0")
            #expect(config.configValue(forKey: "current_version").source == .default)

            #expect(try await config.fetchAndActivate() == .successFetchedFromRemote)
            #expect(config.configValue(forKey: "current_version").stringValue == "2.3.0")
            #expect(config.configValue(forKey: "current_version").source == .remote)
            #expect(config.configValue(forKey: "require_force_update").boolValue == false)
            #expect(config.configValue(forKey: "welcome").source == .default)

            // Throttled: no network call within the minimum interval.
            let calls = transport.statuses.withLockedValue { $0.count }
            #expect(try await config.fetchAndActivate() == .successUsingPreFetchedData)
            #expect(transport.statuses.withLockedValue { $0.count } == calls)

            // Past the interval, nothing changed: the server answers 304.
            try await config.fetch(withExpirationDuration: 0)
            #expect(transport.statuses.withLockedValue { $0.last } == 304)
            #expect(config.configValue(forKey: "current_version").stringValue == "2.3.0")

            // A new instance (a relaunch) starts from what was activated.
            let relaunched = Self.sdk(port: app.port, key: key.secret, version: "2.0.0", directory: directory)
            #expect(relaunched.configValue(forKey: "current_version").stringValue == "2.3.0")
        }
        // Offline relaunch: the server is gone, the activated values remain and a fetch error keeps them.
        let offline = Self.sdk(port: 1, key: "rc_client_gone", version: "2.0.0", directory: directory)
        #expect(offline.configValue(forKey: "current_version").stringValue == "2.3.0")
        await #expect(throws: (any Error).self) { try await offline.fetch(withExpirationDuration: 0) }
        #expect(offline.configValue(forKey: "current_version").stringValue == "2.3.0")
    }

    /// URLSession asks for gzip and decodes it on its own: a long answer reaches the SDK gzipped, is read
    /// whole, and its ETag gets a 304 the next time.
    @Test func aLongAnswerComesGzippedThroughURLSessionAndKeepsItsETag() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            try SetupFailure.unless(
                try await app.publish("shop-app", ContentEncodingTests.template).status == 200, "publish")
            let transport = RecordingTransport()
            let config = Self.sdk(
                port: app.port, key: key.secret, version: "2.0.0", directory: directory, transport: transport)
            #expect(try await config.fetchAndActivate() == .successFetchedFromRemote)
            let notes = try #require(
                ContentEncodingTests.template["parameters"]?["release_notes"]?["defaultValue"]?["value"]?.stringValue)
            #expect(config.configValue(forKey: "release_notes").stringValue == notes)
            #expect(config.configValue(forKey: "current_version").stringValue == "2.2.0")
            try await config.fetch(withExpirationDuration: 0)
            #expect(transport.statuses.withLockedValue { $0 } == [200, 304])
            #expect(transport.encodings.withLockedValue { $0.first } == "gzip")
        }
    }

    @Test func forceUpdateDecisionsMatchTheServer() async throws {
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await app.publish("shop-app", TemplateFixtures.readmeForceUpdateValue)
            let cases: [(String, String)] = [
                ("1.0.0", "required"), ("1.1.4", "required"), ("1.9.9", "required"), ("2.0.0", "available"),
                ("2.1", "available"), ("2.3.0", "upToDate"),
            ]
            for (version, expected) in cases {
                let directory = Self.temporaryDirectory()
                defer { try? FileManager.default.removeItem(at: directory) }
                let config = Self.sdk(port: app.port, key: key.secret, version: version, directory: directory)
                try await config.fetchAndActivate()
                let decision =
                    switch config.checkForUpdate() {
                    case .updateRequired: "required"
                    case .updateAvailable: "available"
                    case .upToDate: "upToDate"
                    case .deviceUnsupported: "deviceUnsupported"
                    }
                #expect(decision == expected, "iOS \(version)")
            }
        }
    }

    @Test func anAppUpdateFromABlockedReleaseIsNotBlockedOnlineOrOffline() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await app.publish("shop-app", TemplateFixtures.readmeForceUpdateValue)
            let blocked = Self.sdk(port: app.port, key: key.secret, version: "1.1.4", directory: directory)
            try await blocked.fetchAndActivate()
            guard case .updateRequired = blocked.checkForUpdate() else {
                Issue.record("1.1.4 must be blocked")
                return
            }
            // The user installs 2.0.0 while the server is reachable, within the minimum fetch interval.
            let updated = Self.sdk(port: app.port, key: key.secret, version: "2.0.0", directory: directory)
            #expect(updated.checkForUpdate() == .updateAvailable(latest: "2.3.0", storeURL: Self.storeURL))
            #expect(try await updated.fetchAndActivate() == .successFetchedFromRemote)
            #expect(updated.checkForUpdate() == .updateAvailable(latest: "2.3.0", storeURL: Self.storeURL))
        }
        // Another device state: fetched on 1.1.4, then updated to 2.0.0 and opened offline.
        let offlineDirectory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: offlineDirectory) }
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await app.publish("shop-app", TemplateFixtures.readmeForceUpdateValue)
            let blocked = Self.sdk(port: app.port, key: key.secret, version: "1.1.4", directory: offlineDirectory)
            try await blocked.fetchAndActivate()
        }
        let offline = Self.sdk(port: 1, key: "rc_client_gone", version: "2.0.0", directory: offlineDirectory)
        await #expect(throws: (any Error).self) { try await offline.fetchAndActivate() }
        #expect(offline.checkForUpdate() == .updateAvailable(latest: "2.3.0", storeURL: Self.storeURL))
    }

    static let storeURL = URL(string: "https://apps.apple.com/app/id123")

    @Test func aWrongKeyIsReportedAsRefused() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let wrongKey = Self.sdk(port: app.port, key: "rc_client_wrong", version: "2.0.0", directory: directory)
            do {
                try await wrongKey.fetch()
                Issue.record("a wrong key must be refused")
            } catch let error as RemoteConfigError {
                guard case .keyRefused(401, _) = error else { throw error }
            }
        }
    }

    @Test func theRealtimeListenerReactsToAPublishWithinASecond() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await app.publish("shop-app", TemplateFixtures.readmeForceUpdateValue)
            let config = Self.sdk(port: app.port, key: key.secret, version: "2.0.0", directory: directory)
            try await config.fetchAndActivate()
            let updates = config.configUpdates()
            try await Task.sleep(for: .milliseconds(300))  // let the stream connect
            // The README's template with `current_version` raised.
            let raised = TemplateFixtures.forceUpdateValue(
                currentVersion: "2.4.0", storeURL: "https://apps.apple.com/app/id123")
            try await app.publish("shop-app", raised)
            // From the moment the publish is acknowledged: the listener's share of the delay.
            let start = ContinuousClock.now
            var iterator = updates.makeAsyncIterator()
            let update = try await iterator.next()
            let elapsed = ContinuousClock.now - start
            #expect(update?.updatedKeys == ["current_version"])
            #expect(elapsed < .seconds(1), "the listener heard of the publish after \(elapsed)")
            try await config.activate()
            #expect(config.configValue(forKey: "current_version").stringValue == "2.4.0")
        }
    }
}
