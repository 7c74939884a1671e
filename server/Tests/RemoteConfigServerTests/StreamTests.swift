import Foundation
import HTTPTypes
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// `remoteConfig:stream`: events on connect and on each publish, Last-Event-ID, keep-alives, revocation.
@Suite struct StreamTests {
    @Test func announcesTheCurrentVersionAndEveryPublish() async throws {
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            let empty = try SSEClient(port: app.port, path: ClientCalls.streamPath, headers: ["X-API-Key": key.secret])
            let head = try await empty.head()
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(head.lowercased().contains("content-type: text/event-stream"))
            #expect(try await empty.next()?.retry == "2000")
            #expect(try await empty.next(timeout: .milliseconds(300)) == nil, "no event before the first publish")

            try await ClientCalls.publish(app, "1.0.0")
            let first = try await empty.next()
            #expect(first?.event == "version")
            #expect(first?.id == "1")
            #expect(first?.data == #"{"latestTemplateVersionNumber": "1"}"#)

            let late = try SSEClient(port: app.port, path: ClientCalls.streamPath + "?key=\(key.secret)")
            _ = try await late.head()
            _ = try await late.next()  // retry
            #expect(try await late.next()?.id == "1", "a new subscriber hears the current version at once")

            try await ClientCalls.publish(app, "1.0.1")
            #expect(try await empty.next()?.id == "2")
            #expect(try await late.next()?.id == "2")
            try await app.call(.post, "/v1/projects/shop-app/remoteConfig:rollback", json: ["versionNumber": "1"])
            #expect(try await late.next()?.id == "3", "a rollback is announced too")
        }
    }

    @Test func lastEventIDSuppressesTheEventWhenCurrent() async throws {
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await ClientCalls.publish(app, "1.0.0")
            try await ClientCalls.publish(app, "1.0.1")
            let current = try SSEClient(
                port: app.port, path: ClientCalls.streamPath, headers: ["X-API-Key": key.secret, "Last-Event-ID": "2"])
            _ = try await current.head()
            _ = try await current.next()  // retry
            #expect(try await current.next(timeout: .milliseconds(300)) == nil)
            let behind = try SSEClient(
                port: app.port, path: ClientCalls.streamPath, headers: ["X-API-Key": key.secret, "Last-Event-ID": "1"])
            _ = try await behind.head()
            _ = try await behind.next()
            #expect(try await behind.next()?.id == "2")
        }
    }

    @Test func idleStreamsGetKeepAlives() async throws {
        try await TestApp.live(configure: ClientCalls.keepAlive(.milliseconds(200))) { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            let stream = try SSEClient(port: app.port, path: ClientCalls.streamPath, headers: ["X-API-Key": key.secret])
            _ = try await stream.head()
            _ = try await stream.next()
            #expect(try await stream.next(timeout: .seconds(2))?.comment == "keep-alive")
        }
    }

    @Test func keysAreCheckedAndRevocationClosesStreams() async throws {
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            let key = try await app.createKey(role: "client", project: "shop-app")
            let other = try await app.createKey(role: "client", project: "other-app")
            let none = try SSEClient(port: app.port, path: ClientCalls.streamPath)
            #expect(try await none.head().hasPrefix("HTTP/1.1 401"))
            let foreign = try SSEClient(
                port: app.port, path: ClientCalls.streamPath, headers: ["X-API-Key": other.secret])
            #expect(try await foreign.head().hasPrefix("HTTP/1.1 403"))

            let stream = try SSEClient(port: app.port, path: ClientCalls.streamPath, headers: ["X-API-Key": key.secret])
            _ = try await stream.head()
            _ = try await stream.next()
            try await app.call(.delete, "/v1/apiKeys/\(key.id)")
            #expect(try await stream.waitForClose(timeout: .seconds(2)), "revoking the key closes its stream")
        }
    }
}
