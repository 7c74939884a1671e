import Foundation
import Testing

@testable import RemoteConfigClient

@Suite struct FetchTests {
    @Test func fetchSendsTheContractRequest() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.setCustomSignals(["plan": "pro", "cart_items": 3])
        harness.transport.enqueue(.ok(["welcome": "Hi"]))
        try await config.fetch()

        let request = try #require(harness.transport.requests.first)
        #expect(request.httpMethod == "POST")
        #expect(request.url?.absoluteString == "https://config.example.com/v1/projects/my-app/remoteConfig:fetch")
        #expect(request.value(forHTTPHeaderField: "X-API-Key") == "client-key-1")
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "application/json")
        #expect(request.value(forHTTPHeaderField: "If-None-Match") == nil)
        let body = jsonBody(of: request)
        #expect(body["appInstanceId"] as? String == config.appInstanceId)
        #expect(body["appId"] as? String == "com.example.shop")
        #expect(body["platform"] as? String == "IOS")
        #expect(body["appVersion"] as? String == "2.1.0")
        #expect(body["appBuild"] as? String == "210")
        #expect(body["countryCode"] as? String == "JP")
        #expect(body["languageCode"] as? String == "ja-JP")
        #expect(body["timeZone"] as? String == "Asia/Tokyo")
        #expect((body["sdkVersion"] as? String)?.hasPrefix("remote-config-swift/") == true)
        let signals = try #require(body["customSignals"] as? [String: Any])
        #expect(signals["plan"] as? String == "pro")
        #expect(signals["cart_items"] as? Int == 3)
    }

    @Test func fetchedValuesApplyOnlyAfterActivate() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.setDefaults(["welcome": "Default", "only_default": "d"])
        harness.transport.enqueue(.ok(["welcome": "Remote", "extra": "x"], version: "7"))

        #expect(try await config.fetch() == .success)
        #expect(config["welcome"].stringValue == "Default")
        #expect(config.lastFetchStatus == .success)
        #expect(config.lastFetchTime == harness.clock.now)

        #expect(try await config.activate())
        #expect(config["welcome"].stringValue == "Remote")
        #expect(config["welcome"].source == .remote)
        #expect(config["only_default"].source == .default)
        #expect(config.allKeys(from: .remote) == ["extra", "welcome"])
        #expect(config.activeTemplateVersion == "7")
        #expect(try await config.activate() == false, "activating the same values again changes nothing")
    }

    @Test func fetchAndActivateThenThrottle() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueue(.ok(["a": "1"], etag: "\"v1\""))
        #expect(try await config.fetchAndActivate() == .successFetchedFromRemote)
        #expect(config["a"].stringValue == "1")

        harness.clock.advance(11 * 60 * 60)
        #expect(try await config.fetchAndActivate() == .successUsingPreFetchedData)
        #expect(harness.transport.fetchCount == 1, "within 12 hours no request is sent")

        harness.clock.advance(60 * 60 + 1)
        harness.transport.enqueue(.ok(["a": "2"], etag: "\"v2\""))
        #expect(try await config.fetchAndActivate() == .successFetchedFromRemote)
        #expect(harness.transport.fetchCount == 2)
        #expect(harness.transport.requests[1].value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
        #expect(config["a"].stringValue == "2")
    }

    @Test func minimumFetchIntervalAndExpirationDuration() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        #expect(config.configSettings.minimumFetchInterval == 43_200)
        config.configSettings.minimumFetchInterval = 0
        harness.transport.enqueue(.ok(["a": "1"]), .notModified(), .notModified())
        try await config.fetch()
        try await config.fetch()
        #expect(harness.transport.fetchCount == 2)

        config.configSettings.minimumFetchInterval = 3600
        try await config.fetch(withExpirationDuration: 0)
        #expect(harness.transport.fetchCount == 3)
        try await config.fetch()
        #expect(harness.transport.fetchCount == 3)
    }

    @Test func changedRequestSkipsTheThrottle() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueue(.ok(["a": "1"]), .ok(["a": "vip"], etag: "\"e2\""))
        try await config.fetch()
        config.setCustomSignals(["tier": "vip"])
        try await config.fetch()
        #expect(harness.transport.fetchCount == 2, "new custom signals may change the answer")
    }

    @Test func notModifiedKeepsValues() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.configSettings.minimumFetchInterval = 0
        harness.transport.enqueue(.ok(["a": "1"], etag: "\"e1\""), .notModified(etag: "\"e1\""))
        #expect(try await config.fetchAndActivate() == .successFetchedFromRemote)
        harness.clock.advance(5)
        #expect(try await config.fetchAndActivate() == .successUsingPreFetchedData)

        #expect(harness.transport.requests[1].value(forHTTPHeaderField: "If-None-Match") == "\"e1\"")
        #expect(config["a"].stringValue == "1")
        #expect(config["a"].source == .remote)
        #expect(config.lastFetchStatus == .success)
        #expect(config.lastFetchTime == harness.clock.now)
    }

    @Test func notModifiedActivatesPendingValues() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.configSettings.minimumFetchInterval = 0
        harness.transport.enqueue(.ok(["a": "1"]), .notModified())
        try await config.fetch()
        #expect(try await config.fetchAndActivate() == .successUsingPreFetchedData)
        #expect(config["a"].stringValue == "1")
    }

    @Test func failuresNeverDropActiveValues() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.configSettings.minimumFetchInterval = 0
        harness.transport.enqueue(.ok(["a": "1"]))
        try await config.fetchAndActivate()

        harness.transport.enqueueOffline()
        await #expect(throws: RemoteConfigError.self) { try await config.fetchAndActivate() }
        #expect(config.lastFetchStatus == .failure)
        #expect(config["a"].stringValue == "1")

        harness.transport.enqueue(.status(401, message: "bad key"))
        do {
            try await config.fetch()
            Issue.record("expected an error")
        } catch let error as RemoteConfigError {
            #expect(error == .keyRefused(statusCode: 401, message: "bad key"))
        }
        harness.transport.enqueue(StubResponse(status: 200, body: Data("<html>".utf8), headers: [:]))
        await #expect(throws: RemoteConfigError.self) { try await config.fetch() }
        #expect(config["a"].stringValue == "1")
        #expect(config["a"].source == .remote)
    }

    @Test func completionHandlerReportsError() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        harness.transport.enqueueOffline()
        let (stream, continuation) = AsyncStream<(RemoteConfigFetchAndActivateStatus, Bool)>.makeStream()
        config.fetchAndActivate { status, error in
            continuation.yield((status, error != nil))
            continuation.finish()
        }
        let result = try await withTimeout { await stream.first { _ in true } }
        #expect(result?.0 == .error)
        #expect(result?.1 == true)
    }

    @Test func emptyStatesAreRemoteAndEmpty() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.setDefaults(["a": "default"])
        let body = Data(#"{"state":"NO_TEMPLATE"}"#.utf8)
        harness.transport.enqueue(StubResponse(status: 200, body: body, headers: ["ETag": "\"none\""]))
        #expect(try await config.fetchAndActivate() == .successFetchedFromRemote)
        #expect(config["a"].source == .default)
        #expect(config.allKeys(from: .remote).isEmpty)
    }

    @Test func concurrentFetchesShareOneRequest() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        let release = harness.transport.enqueueHeld(.ok(["a": "1"]))
        async let first = config.fetchAndActivate()
        _ = try await harness.transport.nextFetchRequest()
        async let second = config.fetchAndActivate()
        try await Task.sleep(nanoseconds: 50_000_000)
        release()
        let statuses = try await [first, second]
        #expect(statuses == [.successFetchedFromRemote, .successFetchedFromRemote])
        #expect(harness.transport.fetchCount == 1)
        #expect(config["a"].stringValue == "1")
    }
}
