import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Several servers on one database: publishes and revocations reach every one of them.
@Suite struct ReplicaTests {
    static let token = "rc_admin_replicaTestToken000000000000000"

    /// Two servers on a fresh database, with a project and a client key.
    static func twoServers() async throws -> (ServerProcess, ServerProcess, [String], String) {
        let url = ServeCommandTests.urlText(try await TestCluster.shared.makeDatabase())
        let environment = ["RC_ADMIN_TOKEN": token, "RC_LOG_LEVEL": "warning"]
        let one = try ServerProcess(["serve", "--port", "0", "--database-url", url], environment: environment)
        let two = try ServerProcess(["serve", "--port", "0", "--database-url", url], environment: environment)
        let bases = [
            "http://127.0.0.1:\(try await one.waitUntilListening())",
            "http://127.0.0.1:\(try await two.waitUntilListening())",
        ]
        let admin = ["Authorization": "Bearer \(token)"]
        let project = try await HTTP.request(
            "POST", bases[0] + "/v1/projects", headers: admin, body: HTTP.json(["projectId": "shop-app"]))
        #expect(project.status == 201)
        let key = try await HTTP.request(
            "POST", bases[0] + "/v1/apiKeys", headers: admin,
            body: HTTP.json(["role": "client", "project": "shop-app", "displayName": "app"]))
        let secret = try #require(try key.decode(APIKey.self).key)
        return (one, two, bases, secret)
    }

    static func fetch(_ base: String, key: String) async throws -> HTTP.Reply {
        try await HTTP.request(
            "POST", base + "/v1/projects/shop-app/remoteConfig:fetch", headers: ["X-API-Key": key],
            body: HTTP.json(["appInstanceId": "i", "platform": "IOS", "appVersion": "1.0.0"]))
    }

    /// Polls `condition` every 20 ms until it holds or `limit` passes; returns the time it took.
    static func within(_ limit: Duration, _ condition: () async throws -> Bool) async throws -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if try await condition() { return ContinuousClock.now - start }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    @Test func aPublishOnOneServerIsServedByTheOtherWithinASecond() async throws {
        let (one, two, bases, key) = try await Self.twoServers()
        defer {
            one.signal()
            two.signal()
        }
        #expect(try await Self.fetch(bases[1], key: key).value["state"]?.stringValue == "NO_TEMPLATE")
        let template: JSONValue = ["parameters": ["current_version": ["defaultValue": ["value": "2.3.0"]]]]
        let publish = try await HTTP.request(
            "PUT", bases[0] + "/v1/projects/shop-app/remoteConfig",
            headers: ["Authorization": "Bearer \(Self.token)", "If-Match": "*"], body: HTTP.json(template))
        #expect(publish.status == 200)
        let delay = try await Self.within(.seconds(1)) {
            try await Self.fetch(bases[1], key: key).value["templateVersion"]?.stringValue == "1"
        }
        #expect(delay != nil, "the second server did not serve version 1 within a second")
        print("publish on server 1 served by server 2 after \(delay ?? .seconds(1))")
    }

    @Test func aRevokedClientKeyIsRefusedByEveryServerWithinASecond() async throws {
        let (one, two, bases, key) = try await Self.twoServers()
        defer {
            one.signal()
            two.signal()
        }
        // Both servers have seen (and cached) the key.
        #expect(try await Self.fetch(bases[0], key: key).status == 200)
        #expect(try await Self.fetch(bases[1], key: key).status == 200)
        let list = try await HTTP.request(
            "GET", bases[0] + "/v1/apiKeys", headers: ["Authorization": "Bearer \(Self.token)"])
        let names = try list.decode(APIKeyList.self).apiKeys.filter { $0.role == "client" }
        let name = try #require(names.first?.name)
        let revoke = try await HTTP.request(
            "DELETE", bases[0] + "/v1/\(name)", headers: ["Authorization": "Bearer \(Self.token)"])
        #expect(revoke.status == 200)
        let delay = try await Self.within(.seconds(1)) {
            try await Self.fetch(bases[1], key: key).status == 401
        }
        #expect(delay != nil, "the second server still accepted the revoked key after a second")
    }
}

/// Realtime across replicas and at shutdown.
@Suite struct RealtimeReplicaTests {
    @Test func subscribersOfEveryServerHearOfAPublishWithinASecond() async throws {
        let (one, two, bases, key) = try await ReplicaTests.twoServers()
        defer {
            one.signal()
            two.signal()
        }
        let ports = bases.map { Int($0.split(separator: ":").last!)! }
        let path = "/v1/projects/shop-app/remoteConfig:stream"
        let streams = try ports.map { try SSEClient(port: $0, path: path, headers: ["X-API-Key": key]) }
        for stream in streams {
            _ = try await stream.head()
            #expect(try await stream.next()?.retry == "2000")
        }
        let start = ContinuousClock.now
        let publish = try await HTTP.request(
            "PUT", bases[0] + "/v1/projects/shop-app/remoteConfig",
            headers: ["Authorization": "Bearer \(ReplicaTests.token)", "If-Match": "*"],
            body: HTTP.json(["parameters": ["min_supported_version": ["defaultValue": ["value": "2.0.0"]]]]))
        #expect(publish.status == 200)
        for (index, stream) in streams.enumerated() {
            let event = try await stream.next(timeout: .seconds(1))
            #expect(event?.id == "1", "server \(index + 1) did not announce version 1 within a second")
        }
        print("publish on server 1 announced on both servers after \(ContinuousClock.now - start)")
    }

    @Test func sigtermClosesStreamsAndExitsPromptly() async throws {
        let (one, two, bases, key) = try await ReplicaTests.twoServers()
        defer { two.signal() }
        let port = Int(bases[0].split(separator: ":").last!)!
        let stream = try SSEClient(
            port: port, path: "/v1/projects/shop-app/remoteConfig:stream", headers: ["X-API-Key": key])
        _ = try await stream.head()
        _ = try await stream.next()
        let start = ContinuousClock.now
        one.signal(SIGTERM)
        #expect(try await stream.waitForClose(timeout: .seconds(5)))
        #expect(try await one.waitForExit(timeout: .seconds(10)) == 0)
        #expect(ContinuousClock.now - start < .seconds(5), "shutdown took \(ContinuousClock.now - start)")
    }
}
