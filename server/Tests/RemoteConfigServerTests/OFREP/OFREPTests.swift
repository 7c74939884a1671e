import Foundation
import HTTPTypes
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// The OpenFeature Remote Evaluation Protocol: typed values, reasons and variants, the code-default answer,
/// OFREP's errors, the bulk ETag, and the stream the bulk answer points at. Each test runs through the
/// router (in process) and through a live connection (the event-loop front), which must answer alike.
@Suite struct OFREPTests {
    static let flagsPath = "/ofrep/v1/evaluate/flags"

    /// A template with every value type, a percent condition and an in-app default.
    static var template: JSONValue {
        [
            "conditions": [
                ["name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])"],
                ["name": "half", "expression": "percent <= 50"],
                [
                    "name": "pro",
                    "expression": "app.customSignal['plan'] == 'pro' && app.customSignal['beta'] == 'true'",
                ],
            ],
            "parameters": [
                "require_force_update": [
                    "defaultValue": ["value": "false"], "conditionalValues": ["ios_too_old": ["value": "true"]],
                    "valueType": "BOOLEAN",
                ],
                "welcome": [
                    "defaultValue": ["value": "hello"], "conditionalValues": ["half": ["value": "hi"]],
                    "valueType": "STRING",
                ],
                "max_items": [
                    "defaultValue": ["value": "+10"], "conditionalValues": ["pro": ["value": "2.5"]],
                    "valueType": "NUMBER",
                ],
                "layout": ["defaultValue": ["value": #"{"columns": 2, "tags": ["a"]}"#], "valueType": "JSON"],
                "app_store_url": ["defaultValue": ["useInAppDefault": true], "valueType": "STRING"],
            ],
        ]
    }

    static func modes() -> [Bool] { [false, true] }

    /// Runs `body` with `shop-app` published (`template`) and a client key, in process (`live: false`) or on
    /// a port.
    static func withShop(
        live: Bool, template: @escaping @Sendable () -> JSONValue = { Self.template },
        _ body: @Sendable @escaping (TestApp.Session, String) async throws -> Void
    ) async throws {
        try await TestApp.run(url: try await TestCluster.shared.makeDatabase(), live: live) { app in
            try await app.createProject("shop-app")
            let published = try await app.publish("shop-app", template())
            try SetupFailure.unless(published.status == 200, published.text)
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await body(app, key.secret)
        }
    }

    static func evaluate(
        _ app: TestApp.Session, _ path: String, key: String?, context: JSONValue?, headers: HTTPFields = [:]
    ) async throws -> TestApp.Reply {
        var fields = headers
        if let key { fields[.authorization] = "Bearer \(key)" }
        let body: JSONValue = context.map { ["context": $0] } ?? [:]
        return try await app.call(.post, path, token: nil, json: body, headers: fields)
    }

    @Test(arguments: modes()) func typedValuesReasonsAndVariants(live: Bool) async throws {
        try await Self.withShop(live: live) { app, key in
            let oldIOS: JSONValue = [
                "targetingKey": "install-1", "platform": "IOS", "appVersion": "1.9.0", "plan": "pro", "beta": true,
            ]
            let force = try await Self.evaluate(
                app, "\(Self.flagsPath)/require_force_update", key: key, context: oldIOS)
            #expect(force.status == 200, "\(force.text)")
            #expect(force.value["key"] == "require_force_update")
            #expect(force.value["value"] == true, "BOOLEAN is a JSON boolean: \(force.text)")
            #expect(force.text.contains(#""value":true"#))
            #expect(force.value["reason"] == "TARGETING_MATCH")
            #expect(force.value["variant"] == "ios_too_old")
            let metadata = force.value["metadata"]
            #expect(metadata?["valueType"] == "BOOLEAN")
            #expect(metadata?["templateVersion"] == "1")

            // A boolean attribute is the custom signal "true"; a NUMBER is a JSON number.
            let items = try await Self.evaluate(app, "\(Self.flagsPath)/max_items", key: key, context: oldIOS)
            #expect(items.text.contains(#""value":2.5"#), "\(items.text)")
            #expect(items.value["variant"] == "pro")
            let plain = try await Self.evaluate(
                app, "\(Self.flagsPath)/max_items", key: key, context: ["targetingKey": "install-1"])
            #expect(plain.text.contains(#""value":10,"#), "+10 is written as JSON's 10: \(plain.text)")
            #expect(plain.value["reason"] == "STATIC")
            #expect(plain.value["variant"] == "default")

            let layout = try await Self.evaluate(app, "\(Self.flagsPath)/layout", key: key, context: oldIOS)
            #expect(layout.value["value"]?["columns"]?.intValue == 2, "JSON is the value itself: \(layout.text)")

            // A percent condition decides: SPLIT. Find an instance on each side of 50%.
            var reasons = Set<String>()
            for index in 0..<20 {
                let welcome = try await Self.evaluate(
                    app, "\(Self.flagsPath)/welcome", key: key, context: ["targetingKey": "user-\(index)"])
                let reason = welcome.value["reason"]?.stringValue ?? ""
                reasons.insert(reason)
                #expect(
                    (reason == "SPLIT" && welcome.value["value"] == "hi" && welcome.value["variant"] == "half")
                        || (reason == "STATIC" && welcome.value["value"] == "hello"), "\(welcome.text)")
            }
            #expect(reasons == ["SPLIT", "STATIC"])

            // The in-app default: 200 without a value, so the provider uses the app's own default.
            let store = try await Self.evaluate(app, "\(Self.flagsPath)/app_store_url", key: key, context: oldIOS)
            #expect(store.status == 200)
            #expect(store.value["value"] == nil, "\(store.text)")
            #expect(store.value["reason"] == "STATIC")
            #expect(store.value["variant"] == "default")
        }
    }

    @Test(arguments: modes()) func errorsInOFREPShape(live: Bool) async throws {
        try await Self.withShop(live: live) { app, key in
            let missing = try await Self.evaluate(
                app, "\(Self.flagsPath)/no_such_flag", key: key, context: ["targetingKey": "i"])
            #expect(missing.status == 404)
            #expect(missing.value["key"] == "no_such_flag")
            #expect(missing.value["errorCode"] == "FLAG_NOT_FOUND")
            #expect(missing.value["errorDetails"]?.stringValue != nil)

            let noKey = try await Self.evaluate(
                app, "\(Self.flagsPath)/welcome", key: key, context: ["platform": "IOS"])
            #expect(noKey.status == 400)
            #expect(noKey.value["errorCode"] == "TARGETING_KEY_MISSING", "\(noKey.text)")
            #expect(noKey.value["key"] == "welcome")
            let noContext = try await Self.evaluate(app, Self.flagsPath, key: key, context: nil)
            #expect(noContext.value["errorCode"] == "TARGETING_KEY_MISSING", "\(noContext.text)")
            #expect(noContext.value["key"] == nil, "a bulk failure names no flag")

            let badPlatform = try await Self.evaluate(
                app, "\(Self.flagsPath)/welcome", key: key, context: ["targetingKey": "i", "platform": "symbian"])
            #expect(badPlatform.status == 400)
            #expect(badPlatform.value["errorCode"] == "INVALID_CONTEXT")
            #expect(badPlatform.value["errorDetails"]?.stringValue?.contains("platform") == true)
            let badKey = try await Self.evaluate(app, Self.flagsPath, key: key, context: ["targetingKey": 7])
            #expect(badKey.value["errorCode"] == "INVALID_CONTEXT")

            var headers = HTTPFields()
            headers[.authorization] = "Bearer \(key)"
            headers[.contentType] = "application/json"
            let garbage = try await app.call(
                .post, Self.flagsPath, token: nil, raw: .init(string: "{not json"), headers: headers)
            #expect(garbage.status == 400)
            #expect(garbage.value["errorCode"] == "PARSE_ERROR")

            // 401 and 403 without a body; X-API-Key works as well as a bearer token.
            let anonymous = try await Self.evaluate(app, Self.flagsPath, key: nil, context: ["targetingKey": "i"])
            #expect(anonymous.status == 401)
            #expect(anonymous.body.isEmpty)
            let admin = try await Self.evaluate(
                app, Self.flagsPath, key: TestApp.adminToken, context: ["targetingKey": "i"])
            #expect(admin.status == 403)
            #expect(admin.body.isEmpty)
            let apiKey = try await Self.evaluate(
                app, Self.flagsPath, key: nil, context: ["targetingKey": "i"],
                headers: [HTTPField.Name("X-API-Key")!: key])
            #expect(apiKey.status == 200)
        }
    }

    @Test(arguments: modes()) func bulkHasEveryFlagAnETagAndTheStream(live: Bool) async throws {
        try await Self.withShop(live: live) { app, key in
            let context: JSONValue = ["targetingKey": "install-1", "platform": "IOS", "appVersion": "1.9.0"]
            let headers: HTTPFields = [
                .init("X-Forwarded-Proto")!: "https", .init("X-Forwarded-Host")!: "config.example.com",
            ]
            let bulk = try await Self.evaluate(app, Self.flagsPath, key: key, context: context, headers: headers)
            #expect(bulk.status == 200, "\(bulk.text)")
            let flags = bulk.value["flags"]?.arrayValue ?? []
            #expect(
                flags.compactMap { $0["key"]?.stringValue }.sorted()
                    == ["app_store_url", "layout", "max_items", "require_force_update", "welcome"])
            #expect(bulk.value["metadata"]?["templateVersion"] == "1")
            let streams = bulk.value["eventStreams"]?.arrayValue ?? []
            #expect(streams.first?["type"] == "sse")
            #expect(
                streams.first?["url"]?.stringValue
                    == "https://config.example.com/v1/projects/shop-app/remoteConfig:stream?format=ofrep&key=\(key)")
            // Each item of the bulk answer is the single-flag answer, byte for byte, but for the template
            // version, which the bulk answer has once.
            let single = try await Self.evaluate(
                app, "\(Self.flagsPath)/require_force_update", key: key, context: context)
            let version = #","templateVersion":"1"}}"#
            #expect(single.text.hasSuffix(version), "\(single.text)")
            #expect(bulk.text.contains(single.text.dropLast(version.count) + "}}"), "\(single.text) in \(bulk.text)")
            #expect(!bulk.text.contains(version))

            let etag = try #require(bulk.headers[.eTag])
            var again = headers
            again[.ifNoneMatch] = etag
            let notModified = try await Self.evaluate(app, Self.flagsPath, key: key, context: context, headers: again)
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
            #expect(notModified.headers[.eTag] == etag)

            // A publish that changes nothing for this caller keeps the ETag; one that does changes it. The
            // published template is sent back as it was read (its parameters in the same order) plus a condition.
            let current = try await app.call(.get, "/v1/projects/shop-app/remoteConfig")
            let same = current.text.replacingOccurrences(
                of: #""conditions":["#, with: #""conditions":[{"name":"x","expression":"false"},"#)
            #expect(same != current.text)
            let republished = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig", raw: .init(string: same),
                headers: [.ifMatch: "*", .contentType: "application/json"])
            #expect(republished.status == 200, "\(republished.text)")
            let unchanged = try await Self.evaluate(app, Self.flagsPath, key: key, context: context, headers: again)
            #expect(unchanged.status == 304, "\(etag) vs \(unchanged.headers[.eTag] ?? "-")")
            var changed = try #require(Self.template.objectValue)
            var parameters = try #require(changed["parameters"]?.objectValue)
            parameters["welcome"] = ["defaultValue": ["value": "welcome back"], "valueType": "STRING"]
            changed["parameters"] = .object(parameters)
            #expect(try await app.publish("shop-app", .object(changed)).status == 200)
            let fresh = try await Self.evaluate(app, Self.flagsPath, key: key, context: context, headers: again)
            #expect(fresh.status == 200)
            #expect(fresh.headers[.eTag] != etag)
            #expect(fresh.value["metadata"]?["templateVersion"] == "3")
        }
    }

    /// Bulk answers for one evaluation are made once and reused; a caller with another key, or reaching the
    /// server under another host, still gets its own stream URL.
    @Test(arguments: modes()) func eachCallerGetsTheStreamURLOfItsKeyAndHost(live: Bool) async throws {
        try await Self.withShop(live: live) { app, key in
            let other = try await app.createKey(role: "client", project: "shop-app").secret
            let context: JSONValue = ["targetingKey": "install-1", "platform": "IOS", "appVersion": "1.9.0"]
            let proxied: HTTPFields = [
                .init("X-Forwarded-Proto")!: "https", .init("X-Forwarded-Host")!: "config.example.com",
            ]
            let elsewhere: HTTPFields = [.init("X-Forwarded-Host")!: "eu.example.com"]
            let stream = "/v1/projects/shop-app/remoteConfig:stream?format=ofrep&key="
            let calls: [(String, HTTPFields, String)] = [
                (key, proxied, "https://config.example.com\(stream)\(key)"),
                (other, proxied, "https://config.example.com\(stream)\(other)"),
                (other, elsewhere, "http://eu.example.com\(stream)\(other)"),
                (key, proxied, "https://config.example.com\(stream)\(key)"),
            ]
            var etags = Set<String>()
            for (secret, headers, expected) in calls {
                let bulk = try await Self.evaluate(
                    app, Self.flagsPath, key: secret, context: context, headers: headers)
                #expect(bulk.status == 200, "\(bulk.text)")
                #expect(bulk.value["eventStreams"]?[0]?["url"]?.stringValue == expected)
                if live { #expect(bulk.headers[.contentLength] == String(bulk.body.count)) }
                etags.insert(bulk.headers[.eTag] ?? "")
            }
            // The URL is where to listen, not part of the evaluation: one ETag for all four.
            #expect(etags.count == 1)
        }
    }

    @Test func nothingPublishedIsNoFlags() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let key = try await app.createKey(role: "client", project: "shop-app").secret
            let bulk = try await Self.evaluate(app, Self.flagsPath, key: key, context: ["targetingKey": "i"])
            #expect(bulk.status == 200)
            #expect(bulk.value["flags"] == [], "\(bulk.text)")
            let single = try await Self.evaluate(
                app, "\(Self.flagsPath)/welcome", key: key, context: ["targetingKey": "i"])
            #expect(single.status == 404)
            #expect(single.value["errorCode"] == "FLAG_NOT_FOUND")
        }
    }

    /// The bulk answer's stream: OFREP's event format, on connect and on every publish.
    @Test func theStreamSpeaksOFREP() async throws {
        try await Self.withShop(live: true) { app, key in
            let bulk = try await Self.evaluate(app, Self.flagsPath, key: key, context: ["targetingKey": "i"])
            let url = try #require(bulk.value["eventStreams"]?[0]?["url"]?.stringValue)
            let components = try #require(URLComponents(string: url))
            #expect(components.scheme == "http")
            let stream = try SSEClient(port: app.port, path: components.path + "?" + (components.query ?? ""))
            #expect(try await stream.head().hasPrefix("HTTP/1.1 200"))
            _ = try await stream.next()  // retry
            let first = try await stream.next()
            #expect(first?.event == "message")
            #expect(first?.id == "1")
            let data = try JSONValue(parsing: first?.data ?? "")
            #expect(data["type"] == "refetchEvaluation")
            try await ClientCalls.publish(app, "9.9.9")
            let second = try await stream.next()
            #expect(second?.event == "message")
            #expect(second?.id == "2")
            #expect(second?.data?.contains("refetchEvaluation") == true)
            stream.close()

            let bogus = try await app.call(
                .get, ClientCalls.streamPath + "?format=grpc", token: nil, headers: [.init("X-API-Key")!: key])
            #expect(bogus.status == 400)
            #expect(bogus.errorFields == ["format"])
        }
    }

    /// Answers longer than the front's gather threshold are written from their own buffers: they arrive
    /// whole, twice in a row on one connection, through fetch and OFREP alike.
    @Test func largeAnswersArriveWhole() async throws {
        try await TestApp.live { app in
            try await app.createProject("shop-app")
            var parameters = JSONObject()
            for index in 0..<100 {
                parameters["parameter_\(index)"] = [
                    "defaultValue": ["value": .string(String(repeating: "x", count: 60))], "valueType": "STRING",
                ]
            }
            #expect(try await app.publish("shop-app", ["parameters": .object(parameters)]).status == 200)
            let key = try await app.createKey(role: "client", project: "shop-app").secret
            for _ in 0..<2 {
                let bulk = try await Self.evaluate(app, Self.flagsPath, key: key, context: ["targetingKey": "i"])
                #expect(bulk.body.count > 4096)
                #expect(bulk.value["flags"]?.arrayValue?.count == 100, "\(bulk.text.suffix(200))")
                let fetch = try await ClientCalls.fetch(app, key: key, ["appInstanceId": "i"])
                #expect(fetch.body.count > 4096)
                #expect(fetch.value["entries"]?.objectValue?.count == 100)
            }
        }
    }
}
