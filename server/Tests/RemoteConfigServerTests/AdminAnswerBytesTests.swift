import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// The exact bytes of the admin answers written from RemoteConfigAPI types whose member order the console and
/// scripts may rely on: the version list and the preview.
@Suite struct AdminAnswerBytesTests {
    @Test func theVersionListKeepsFirebasesMemberOrder() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            var first = TemplateFixtures.forceUpdateValue().objectValue ?? [:]
            first["version"] = ["description": "first release"]
            try await app.publish("shop-app", .object(first))
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue(currentVersion: "2.4.0"))
            try await app.call(
                .post, "/v1/projects/shop-app/remoteConfig:rollback",
                body: RollbackRequest(versionNumber: "1", updateOrigin: "CLI"))
            let reply = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions?pageSize=2")
            #expect(reply.status == 200, "\(reply.text)")
            let page = try reply.decode(TemplateVersionList.self)
            let user = try #require(page.versions.first?.updateUser.email)
            var text = reply.text
            for version in page.versions { text = text.replacingOccurrences(of: version.updateTime, with: "T") }
            #expect(
                text
                    == #"{"versions":[{"versionNumber":"3","updateTime":"T","updateUser":{"email":"\#(user)"},"#
                    + #""updateOrigin":"CLI","updateType":"ROLLBACK","description":"Rollback to version 1","#
                    + #""rollbackSource":"1"},{"versionNumber":"2","updateTime":"T","updateUser":{"email":"\#(user)"},"#
                    + #""updateOrigin":"REST_API","updateType":"FORCED_UPDATE"}],"nextPageToken":"2"}"#)
            let last = try await app.call(
                .get, "/v1/projects/shop-app/remoteConfig:listVersions?pageSize=2&pageToken=2")
            let time = try last.decode(TemplateVersionList.self).versions.first?.updateTime ?? ""
            #expect(
                last.text.replacingOccurrences(of: time, with: "T")
                    == #"{"versions":[{"versionNumber":"1","updateTime":"T","updateUser":{"email":"\#(user)"},"#
                    + #""updateOrigin":"REST_API","updateType":"FORCED_UPDATE","description":"first release"}]}"#)
        }
    }

    @Test func thePreviewKeepsTheTemplatesOrder() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let path = "/v1/projects/shop-app/remoteConfig:evaluate"
            let empty = try await app.call(.post, path, body: PreviewRequest(context: ["platform": "IOS"]))
            #expect(empty.text == #"{"entries":{},"state":"NO_TEMPLATE","parameters":{},"conditions":{}}"#)

            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let old = try await app.call(
                .post, path, body: PreviewRequest(context: ["platform": "IOS", "appVersion": "1.1.4"]))
            #expect(
                old.text
                    == #"{"entries":{"require_force_update":"true","current_version":"2.3.0"},"state":"UPDATE","#
                    + #""parameters":{"require_force_update":{"source":"CONDITION","value":"true","#
                    + #""condition":"ios_too_old"},"current_version":{"source":"DEFAULT","value":"2.3.0"},"#
                    + #""app_store_url":{"source":"IN_APP_DEFAULT"}},"#
                    + #""conditions":{"ios_too_old":true,"broken_release":true},"templateVersion":"1"}"#)
            let android = try await app.call(.post, path, body: PreviewRequest(context: ["platform": "ANDROID"]))
            #expect(android.text.contains(#""conditions":{"ios_too_old":false,"broken_release":null}"#))
        }
    }
}
