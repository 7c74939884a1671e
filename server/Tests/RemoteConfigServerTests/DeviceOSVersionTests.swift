import Foundation
import HTTPTypes
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// `osVersion` in a fetch, an OFREP context and a preview, read by `device.osVersion` conditions.
@Suite struct DeviceOSVersionTests {
    /// docs/conditions.md's example: iOS 15 devices are offered 2.9.4, the last version they can install.
    static var templateValue: JSONValue {
        [
            "conditions": [
                ["name": "ios_before_16", "expression": "device.os == 'ios' && device.osVersion.<(['16.0'])"]
            ],
            "parameters": [
                "current_version": [
                    "defaultValue": ["value": "3.0.0"],
                    "conditionalValues": ["ios_before_16": ["value": "2.9.4"]], "valueType": "STRING",
                ],
                "min_os_version": [
                    "defaultValue": ["value": "16.0"],
                    "conditionalValues": ["ios_before_16": ["value": "15.0"]], "valueType": "STRING",
                ],
            ],
        ]
    }

    static func withShop(
        live: Bool, _ body: @Sendable @escaping (TestApp.Session, String) async throws -> Void
    ) async throws {
        try await TestApp.run(url: try await TestCluster.shared.makeDatabase(), live: live) { app in
            try await app.createProject("shop-app")
            let published = try await app.publish("shop-app", templateValue)
            try SetupFailure.unless(published.status == 200, published.text)
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await body(app, key.secret)
        }
    }

    static func ios(_ osVersion: JSONValue?) -> JSONValue {
        var body: JSONObject = ["appInstanceId": "install-1", "platform": "IOS", "appVersion": "2.5.0"]
        body["osVersion"] = osVersion
        return .object(body)
    }

    @Test(arguments: [false, true]) func aFetchsOSVersionDecidesDeviceOSVersionConditions(live: Bool) async throws {
        try await Self.withShop(live: live) { app, key in
            let old = try await ClientCalls.fetch(app, key: key, Self.ios("15.7.2"))
            #expect(old.status == 200, "\(old.text)")
            #expect(old.value["entries"] == ["current_version": "2.9.4", "min_os_version": "15.0"])
            let new = try await ClientCalls.fetch(app, key: key, Self.ios("17.4.1"))
            #expect(new.value["entries"] == ["current_version": "3.0.0", "min_os_version": "16.0"])
            #expect(new.headers[.eTag] != old.headers[.eTag], "the answer, and so its ETag, depends on the OS")
            // Not sent: the condition is unknown, so it does not match.
            let unsent = try await ClientCalls.fetch(app, key: key, Self.ios(nil))
            #expect(unsent.value["entries"]?["current_version"] == "3.0.0")
            let null = try await ClientCalls.fetch(app, key: key, Self.ios(.null))
            #expect(null.value["entries"]?["current_version"] == "3.0.0")
            // Sent but not a version: the atom is false.
            let beta = try await ClientCalls.fetch(app, key: key, Self.ios("16.0-beta"))
            #expect(beta.value["entries"]?["current_version"] == "3.0.0")
        }
    }

    @Test func aBadOSVersionIs400NamingItAndChangesNothing() async throws {
        try await Self.withShop(live: false) { app, key in
            for bad: JSONValue in ["17 4", "", 17, .string(String(repeating: "1", count: 65))] {
                let reply = try await ClientCalls.fetch(app, key: key, Self.ios(bad))
                #expect(reply.status == 400, "\(bad.jsonString)")
                #expect(reply.errorFields == ["osVersion"], "\(bad.jsonString): \(reply.text)")
            }
        }
    }

    @Test(arguments: [false, true]) func anOFREPContextsOSVersionIsReadAsInAFetch(live: Bool) async throws {
        try await Self.withShop(live: live) { app, key in
            let path = "\(OFREPTests.flagsPath)/current_version"
            let context: JSONValue = ["targetingKey": "install-1", "platform": "IOS", "osVersion": "15.7.2"]
            let old = try await OFREPTests.evaluate(app, path, key: key, context: context)
            #expect(old.status == 200, "\(old.text)")
            #expect(old.value["value"] == "2.9.4")
            #expect(old.value["variant"] == "ios_before_16")
            #expect(old.value["reason"] == "TARGETING_MATCH")
            let new = try await OFREPTests.evaluate(
                app, path, key: key, context: ["targetingKey": "install-1", "platform": "IOS", "osVersion": "17.4"])
            #expect(new.value["value"] == "3.0.0")
            let bad = try await OFREPTests.evaluate(
                app, path, key: key, context: ["targetingKey": "install-1", "osVersion": "17 beta"])
            #expect(bad.status == 400)
            #expect(bad.value["errorCode"] == "INVALID_CONTEXT")
            #expect(bad.value["errorDetails"]?.stringValue?.contains("osVersion") == true, "\(bad.text)")
        }
    }

    @Test func thePreviewExplainsADeviceOSVersionCondition() async throws {
        try await Self.withShop(live: false) { app, _ in
            let old = try await PreviewTests.preview(app, ["platform": "IOS", "osVersion": "15.7.2"])
            #expect(old.status == 200, "\(old.text)")
            #expect(old.value["conditions"] == ["ios_before_16": true])
            let parameters = try #require(old.value["parameters"]?.dictionaryValue)
            #expect(
                parameters.values.allSatisfy { $0.dictionaryValue?.values.allSatisfy { $0.stringValue != nil } == true }
            )
            #expect(
                parameters["current_version"]?.dictionaryValue == [
                    "value": "2.9.4", "source": "CONDITION", "condition": "ios_before_16",
                ])

            let new = try await PreviewTests.preview(app, ["platform": "IOS", "osVersion": "17.4.1"])
            #expect(new.value["conditions"] == ["ios_before_16": false])
            #expect(
                new.value["parameters"]?["current_version"]?.dictionaryValue == ["value": "3.0.0", "source": "DEFAULT"])

            let unsent = try await PreviewTests.preview(app, ["platform": "IOS"])
            #expect(unsent.value["conditions"]?["ios_before_16"] == .null, "unknown without osVersion: \(unsent.text)")

            let bad = try await PreviewTests.preview(app, ["platform": "IOS", "osVersion": "x y"])
            #expect(bad.status == 400)
            #expect(bad.errorFields.contains { $0.hasSuffix("osVersion") }, "\(bad.text)")
        }
    }
}
