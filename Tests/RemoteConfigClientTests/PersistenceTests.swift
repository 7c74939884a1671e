import Foundation
import Testing

@testable import RemoteConfigClient

@Suite struct PersistenceTests {
    @Test func appInstanceIdIsGeneratedOnceAndKept() {
        let harness = Harness()
        defer { harness.cleanUp() }
        let first = harness.makeConfig().appInstanceId
        #expect(first.count == 32)
        #expect(harness.makeConfig().appInstanceId == first)

        let other = Harness()
        defer { other.cleanUp() }
        #expect(other.makeConfig().appInstanceId != first)
    }

    @Test func activeValuesSurviveRelaunch() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        harness.transport.enqueue(.ok(["welcome": "Remote"], version: "3", etag: "\"e3\""))
        try await harness.makeConfig().fetchAndActivate()

        let relaunched = harness.makeConfig()
        #expect(relaunched["welcome"].stringValue == "Remote")
        #expect(relaunched["welcome"].source == .remote)
        #expect(relaunched.lastFetchStatus == .success)
        #expect(relaunched.activeTemplateVersion == "3")

        harness.clock.advance(13 * 60 * 60)
        harness.transport.enqueue(.notModified(etag: "\"e3\""))
        #expect(try await relaunched.fetchAndActivate() == .successUsingPreFetchedData)
        #expect(harness.transport.requests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"e3\"")
    }

    @Test func throttleSurvivesRelaunch() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        harness.transport.enqueue(.ok(["a": "1"]))
        try await harness.makeConfig().fetchAndActivate()
        harness.clock.advance(60)
        #expect(try await harness.makeConfig().fetchAndActivate() == .successUsingPreFetchedData)
        #expect(harness.transport.fetchCount == 1)
    }

    @Test func pendingFetchedValuesSurviveRelaunch() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        harness.transport.enqueue(.ok(["a": "1"]))
        try await harness.makeConfig().fetch()

        let relaunched = harness.makeConfig()
        #expect(relaunched["a"].source == .static)
        #expect(try await relaunched.activate())
        #expect(relaunched["a"].stringValue == "1")
    }

    @Test func offlineRelaunchUsesLastActivatedValues() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        harness.transport.enqueue(.ok(["welcome": "Remote", "flag": "on"]))
        try await harness.makeConfig().fetchAndActivate()

        harness.clock.advance(2 * 24 * 60 * 60)
        let offline = FakeTransport()
        offline.enqueueOffline()
        let relaunched = harness.makeConfig(transport: offline)
        relaunched.setDefaults(["welcome": "Default"])
        await #expect(throws: RemoteConfigError.self) { try await relaunched.fetchAndActivate() }
        #expect(relaunched["welcome"].stringValue == "Remote")
        #expect(relaunched["flag"].boolValue)
        #expect(relaunched.lastFetchStatus == .failure)
        #expect(offline.fetchCount == 1)
    }

    @Test func corruptStateStartsFresh() throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        try Data("{not json".utf8).write(to: StateFile(directory: harness.directory).url)
        let config = harness.makeConfig()
        #expect(config.lastFetchStatus == .noFetchYet)
        #expect(!config.appInstanceId.isEmpty)
    }

    @Test func customSignalsPersist() {
        let harness = Harness()
        defer { harness.cleanUp() }
        harness.makeConfig().setCustomSignals(["plan": "pro", "score": 1.5, "gone": nil])
        let relaunched = harness.makeConfig()
        #expect(relaunched.customSignals == ["plan": .string("pro"), "score": .double(1.5)])
        relaunched.setCustomSignals(["plan": nil])
        #expect(relaunched.customSignals == ["score": .double(1.5)])
    }
}
