import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// Publishing the template: the Firebase format, validation, ETags, validateOnly, concurrency.
@Suite struct PublishTests {
    @Test func aFirebaseExportRoundTrips() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let exported = TemplateFixtures.firebaseExport
            let put = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig", raw: ByteBuffer(bytes: exported),
                headers: [.ifMatch: "*", .contentType: "application/json"])
            #expect(put.status == 200, "\(put.text)")
            let get = try await app.call(.get, "/v1/projects/shop-app/remoteConfig")
            #expect(get.status == 200)
            guard case .object(var sent) = try JSONValue(parsing: Array(exported)),
                case .object(var received) = try JSONValue(parsing: Array(get.body))
            else { throw TestFailure("not objects") }
            sent["version"] = nil
            let version = received["version"]?.objectValue
            received["version"] = nil
            #expect(received == sent, "the template came back different")
            #expect(version?["versionNumber"] == .string("1"))
            #expect(get.headers[.eTag] == "\"etag-shop-app-1\"")
        }
    }

    @Test func beforeTheFirstPublishTheTemplateIsEmptyWithAnETag() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let get = try await app.call(.get, "/v1/projects/shop-app/remoteConfig")
            #expect(get.status == 200)
            #expect(get.value["parameters"] == [:])
            let etag = try #require(get.headers[.eTag])
            let first = try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(), ifMatch: etag)
            #expect(first.status == 200)
            #expect(first.value["version"]?["updateType"] == "INCREMENTAL_UPDATE")
            #expect(first.value["version"]?["updateUser"] == ["email": "bootstrap admin"])
        }
    }

    @Test func ifMatchIsRequiredAndStaleETagsChangeNothing() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let missing = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig", json: TemplateFixtures.forceUpdateValue())
            #expect(missing.status == 428)
            #expect(missing.errorStatus == "PRECONDITION_REQUIRED")
            let first = try await app.publish(
                "shop-app", TemplateFixtures.forceUpdateValue(), ifMatch: "\"etag-shop-app-0\"")
            let etag = try #require(first.headers[.eTag])
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0"), ifMatch: etag)
            let stale = try await app.publish(
                "shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "9.9.9"), ifMatch: etag)
            #expect(stale.status == 412)
            #expect(stale.errorStatus == "FAILED_PRECONDITION")
            let foreign = try await app.publish(
                "shop-app", TemplateFixtures.forceUpdateValue(), ifMatch: "\"etag-other-app-2\"")
            #expect(foreign.status == 412)
            let current = try await app.call(.get, "/v1/projects/shop-app/remoteConfig")
            #expect(current.text.contains("2.4.0") && !current.text.contains("9.9.9"))
            let forced = try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "3.0.0"))
            #expect(forced.value["version"]?["updateType"] == "FORCED_UPDATE")
            #expect(forced.value["version"]?["versionNumber"] == "3")
        }
    }

    @Test func validateOnlyAnswersLikeAPublishAndStoresNothing() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let ok = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig?validateOnly=true", json: TemplateFixtures.forceUpdateValue(),
                headers: [.ifMatch: "*"])
            #expect(ok.status == 200)
            #expect(ok.value["parameters"]?["current_version"] != nil)
            var bad = try #require(TemplateFixtures.forceUpdateValue().objectValue)
            bad["conditions"] = [["name": "ios_too_old", "expression": "device.os == "]]
            let invalid = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig?validateOnly=true", json: .object(bad),
                headers: [.ifMatch: "*"])
            #expect(invalid.status == 400)
            #expect(invalid.errorReasons.contains("INVALID_EXPRESSION"))
            let stale = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig?validateOnly=true", json: TemplateFixtures.forceUpdateValue(),
                headers: [.ifMatch: "\"etag-shop-app-5\""])
            #expect(stale.status == 412)
            let versions = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            #expect(versions.value["versions"] == [])
        }
    }

    @Test func fiftyConcurrentPublishesWithOneETag() async throws {
        // Fifty publishes queue for six connections and one row lock: on a loaded machine the last ones could
        // outwait the 5 s store deadline and get 503. This test is about the ETag, so give them time.
        let url = try await TestCluster.shared.makeDatabase()
        try await TestApp.run(url: url, databaseDeadline: .seconds(60)) { app in
            try await app.createProject("shop-app")
            let first = try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let etag = try #require(first.headers[.eTag])
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        try await app.publish(
                            "shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "5.0.\(index)"), ifMatch: etag
                        ).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == 412 }.count == 49)
            let list = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            let numbers = list.value["versions"]?.arrayValue?.map { $0["versionNumber"] }
            #expect(numbers == ["2", "1"])
        }
    }

    @Test func aPublishToAnUnknownProjectIs404() async throws {
        try await TestApp.run { app in
            let reply = try await app.publish("nope-app", TemplateFixtures.forceUpdateValue())
            #expect(reply.status == 404)
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
