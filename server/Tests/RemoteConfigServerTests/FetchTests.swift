import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// `remoteConfig:fetch`: keys, request checks, evaluation, states and ETags.
@Suite struct FetchTests {
    @Test func clientKeysOpenOnlyTheirProjectsFetch() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.createProject("other-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            let otherClient = try await app.createKey(role: "client", project: "other-app")
            let admin = try await app.createKey(role: "admin")
            #expect(try await ClientCalls.fetch(app, key: client.secret, ClientCalls.iosBody("1.0.0")).status == 200)
            let byQuery = try await app.call(
                .post, ClientCalls.fetchPath + "?key=\(client.secret)", token: nil, json: ClientCalls.iosBody("1.0.0"))
            #expect(byQuery.status == 200)
            #expect(try await ClientCalls.fetch(app, key: nil, ClientCalls.iosBody("1.0.0")).status == 401)
            #expect(try await ClientCalls.fetch(app, key: "rc_client_nope", ClientCalls.iosBody("1.0.0")).status == 401)
            #expect(try await ClientCalls.fetch(app, key: admin.secret, ClientCalls.iosBody("1.0.0")).status == 403)
            #expect(
                try await ClientCalls.fetch(app, key: otherClient.secret, ClientCalls.iosBody("1.0.0")).status == 403)
            let bearerOnly = try await app.call(.post, ClientCalls.fetchPath, json: ClientCalls.iosBody("1.0.0"))
            #expect(bearerOnly.status == 401)
            try await app.call(.delete, "/v1/apiKeys/\(client.id)")
            #expect(try await ClientCalls.fetch(app, key: client.secret, ClientCalls.iosBody("1.0.0")).status == 401)
        }
    }

    @Test func badRequestsNameTheField() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            let cases: [(JSONValue, String)] = [
                (["platform": "IOS"], "appInstanceId"),
                (["appInstanceId": "a", "platform": "SYMBIAN"], "platform"),
                (["appInstanceId": "a", "appVersion": "2.0 beta"], "appVersion"),
                (["appInstanceId": "a", "appVersion": 2], "appVersion"),
                (["appInstanceId": 7], "appInstanceId"),
                (["appInstanceId": "a", "customSignals": ["plan": ["nested": true]]], "customSignals.plan"),
                (["appInstanceId": "a", "customSignals": "pro"], "customSignals"),
                (["appInstanceId": "a", "countryCode": "J1"], "countryCode"),
                (["appInstanceId": "a", "timeZone": "Mars/Base"], "timeZone"),
            ]
            for (body, field) in cases {
                let reply = try await ClientCalls.fetch(app, key: client.secret, body)
                #expect(reply.status == 400, "\(body)")
                #expect(reply.errorFields == [field], "\(body): \(reply.text)")
            }
            var headers = HTTPFields()
            headers[.init("X-API-Key")!] = client.secret
            let malformed = try await app.call(
                .post, ClientCalls.fetchPath, token: nil, raw: ByteBuffer(string: "{"), headers: headers)
            #expect(malformed.status == 400)
            let huge = try await ClientCalls.fetch(
                app, key: client.secret, ["appInstanceId": .string(String(repeating: "x", count: 1 << 20))])
            #expect(huge.status == 413)
            #expect(huge.errorStatus == "PAYLOAD_TOO_LARGE")
        }
    }

    @Test func regionCodesDevicesReportAreAccepted() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            for country in ["JP", "gb", "419", "001"] {
                let reply = try await ClientCalls.fetch(
                    app, key: client.secret, ["appInstanceId": "a", "countryCode": .string(country)])
                #expect(reply.status == 200, "\(country)")
            }
        }
    }

    @Test func statesFollowWhatIsPublished() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            let none = try await ClientCalls.fetch(app, key: client.secret, ClientCalls.iosBody("1.0.0"))
            #expect(none.value["state"] == "NO_TEMPLATE")
            #expect(none.value["entries"] == [:])
            #expect(none.value["templateVersion"] == nil)

            try await app.publish(
                "shop-app",
                [
                    "conditions": [["name": "android", "expression": "device.os == 'android'"]],
                    "parameters": [
                        "only_android": [
                            "defaultValue": ["useInAppDefault": true],
                            "conditionalValues": ["android": ["value": "yes"]],
                        ]
                    ],
                ])
            let empty = try await ClientCalls.fetch(app, key: client.secret, ClientCalls.iosBody("1.0.0"))
            #expect(empty.value["state"] == "EMPTY_CONFIG")
            #expect(empty.value["templateVersion"] == "1")
            let android = try await ClientCalls.fetch(
                app, key: client.secret, ["appInstanceId": "a", "platform": "android", "appVersion": "1.0.0"])
            #expect(android.value["state"] == "UPDATE")
            #expect(android.value["entries"] == ["only_android": "yes"])
        }
    }

    @Test func countryAndLanguageAreNormalised() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            try await app.publish(
                "shop-app",
                [
                    "conditions": [
                        ["name": "jp", "expression": "device.country in ['jp']"],
                        ["name": "british", "expression": "device.language in ['en-GB']"],
                    ],
                    "parameters": [
                        "greeting": [
                            "defaultValue": ["value": "hello"],
                            "conditionalValues": ["jp": ["value": "konnichiwa"], "british": ["value": "cheers"]],
                        ]
                    ],
                ])
            for (country, language, expected) in [
                ("JP", "ja-JP", "konnichiwa"), ("jp", "ja", "konnichiwa"), ("GB", "en_GB", "cheers"),
                ("gb", "EN-gb", "cheers"), ("US", "en-US", "hello"),
            ] {
                let reply = try await ClientCalls.fetch(
                    app, key: client.secret,
                    ["appInstanceId": "a", "countryCode": .string(country), "languageCode": .string(language)])
                #expect(reply.value["entries"]?["greeting"] == .string(expected), "\(country) \(language)")
            }
        }
    }

    @Test func etagsFollowWhatThisCallerReceives() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            func template(android: String, ios: String) -> JSONValue {
                [
                    "conditions": [
                        ["name": "android", "expression": "device.os == 'android'"],
                        ["name": "ios", "expression": "device.os == 'ios'"],
                    ],
                    "parameters": [
                        "banner": [
                            "defaultValue": ["value": "default"],
                            "conditionalValues": [
                                "android": ["value": .string(android)], "ios": ["value": .string(ios)],
                            ],
                        ]
                    ],
                ]
            }
            try await app.publish("shop-app", template(android: "a1", ios: "i1"))
            let first = try await ClientCalls.fetch(app, key: client.secret, ClientCalls.iosBody("2.0.0"))
            let etag = try #require(first.headers[.eTag])
            #expect(first.headers[.cacheControl] == "private, no-cache")

            let notModified = try await ClientCalls.fetch(
                app, key: client.secret, ClientCalls.iosBody("2.0.0"), ifNoneMatch: etag)
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
            #expect(notModified.headers[.eTag] == etag)

            try await app.publish("shop-app", template(android: "a2", ios: "i1"))
            let unchanged = try await ClientCalls.fetch(
                app, key: client.secret, ClientCalls.iosBody("2.0.0"), ifNoneMatch: etag)
            #expect(unchanged.status == 304, "an Android-only change must not change an iOS caller's ETag")

            try await app.publish("shop-app", template(android: "a2", ios: "i2"))
            let changed = try await ClientCalls.fetch(
                app, key: client.secret, ClientCalls.iosBody("2.0.0"), ifNoneMatch: etag)
            #expect(changed.status == 200)
            #expect(changed.headers[.eTag] != etag)
            #expect(changed.value["entries"]?["banner"] == "i2")
            #expect(changed.value["templateVersion"] == "3")

            try await app.call(
                .post, "/v1/projects/shop-app/remoteConfig:rollback", body: RollbackRequest(versionNumber: "1"))
            let rolledBack = try await ClientCalls.fetch(
                app, key: client.secret, ClientCalls.iosBody("2.0.0"), ifNoneMatch: etag)
            #expect(rolledBack.status == 304, "rolling back to what this caller had restores its ETag")
        }
    }
}

/// The per-client-key fetch rate limit: off by default, 429 with Retry-After when configured.
@Suite struct FetchRateLimitTests {
    @Test func offByDefault() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            for _ in 0..<30 {
                #expect(
                    try await ClientCalls.fetch(app, key: client.secret, ClientCalls.iosBody("1.0.0")).status == 200)
            }
        }
    }

    @Test func overTheLimitIs429WithRetryAfter() async throws {
        let url = try await TestClusterURL.make()
        let limit: (inout ServerConfiguration) -> Void = { $0.fetchRateLimit = 3 }
        try await TestApp.run(url: url, configure: limit) { app in
            try await app.createProject("shop-app")
            let client = try await app.createKey(role: "client", project: "shop-app")
            let other = try await app.createKey(role: "client", project: "shop-app")
            // Thirty at once: unless they straggle over 9 s, a bucket of 3 refilling at 3/s cannot admit them all.
            let replies = try await withThrowingTaskGroup(of: TestApp.Reply.self) { group in
                for _ in 0..<30 {
                    group.addTask { try await ClientCalls.fetch(app, key: client.secret, ClientCalls.iosBody("1.0.0")) }
                }
                return try await group.reduce(into: [TestApp.Reply]()) { $0.append($1) }
            }
            let statuses = replies.map(\.status)
            let limited = replies.first { $0.status == 429 }
            #expect(statuses.filter { $0 == 200 }.count >= 3, "the burst of 3 goes through: \(statuses)")
            #expect(Set(statuses).isSubset(of: [200, 429]), "\(statuses)")
            #expect(statuses.contains(429))
            #expect(limited?.errorStatus == "RESOURCE_EXHAUSTED")
            #expect(limited?.headers[.retryAfter] != nil)
            #expect(
                try await ClientCalls.fetch(app, key: other.secret, ClientCalls.iosBody("1.0.0")).status == 200,
                "the limit is per key")
        }
    }
}
