import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// Every rule of API.md, reported with its reason and field, all at once, changing nothing.
@Suite struct ValidationTests {
    func rejected(_ template: JSONValue) async throws -> TestApp.Reply {
        let body = template.jsonBytes()
        let reply = try await TestApp.run { app in
            try await app.createProject("shop-app")
            let reply = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig", raw: ByteBuffer(bytes: body), headers: [.ifMatch: "*"])
            let draft = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig/draft", raw: ByteBuffer(bytes: body), headers: [.ifMatch: "*"]
            )
            #expect(draft.status == 400)
            let versions = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            #expect(versions.value["versions"] == [], "a rejected template was stored")
            return reply
        }
        #expect(reply.status == 400)
        #expect(reply.errorStatus == "INVALID_ARGUMENT")
        return reply
    }

    func parameter(_ value: JSONValue, type: String, conditional: JSONValue? = nil) -> JSONValue {
        var parameter: JSONObject = ["defaultValue": value, "valueType": .string(type)]
        parameter["conditionalValues"] = conditional
        return .object(parameter)
    }

    @Test(arguments: [
        ("BOOLEAN", "yes"), ("BOOLEAN", "TRUE"), ("NUMBER", "ten"), ("NUMBER", "1e400"), ("NUMBER", "NaN"),
        ("JSON", "{not json"), ("JSON", "{\"a\": }"),
    ])
    func valuesMustFitTheirType(_ type: String, _ value: String) async throws {
        let reply = try await rejected(["parameters": ["max_items": parameter(["value": .string(value)], type: type)]])
        #expect(reply.errorReasons == ["PARAM_VALUE_TYPE_MISMATCH"])
        #expect(reply.errorFields == ["parameters.max_items.defaultValue.value"])
    }

    @Test func everyProblemIsReportedAtOnce() async throws {
        let template: JSONValue = [
            "conditions": [
                ["name": "ios", "expression": "device.os == 'ios'"],
                ["name": "ios", "expression": "device.os == 'android'"],
                ["name": "broken", "expression": "app.version.>=(['1.0.0'"],
            ],
            "parameters": [
                "flag": parameter(["value": "maybe"], type: "BOOLEAN", conditional: ["missing": ["value": "true"]]),
                "9lives": parameter(["value": "x"], type: "STRING"),
                "dup": parameter(["value": "x"], type: "STRING"),
                "in_app": parameter(["useInAppDefault": false], type: "STRING"),
            ],
            "parameterGroups": ["g": ["parameters": ["dup": parameter(["value": "y"], type: "STRING")]]],
        ]
        let reply = try await rejected(template)
        let reasons = Set(reply.errorReasons)
        #expect(
            reasons == [
                "DUPLICATE_CONDITION", "INVALID_EXPRESSION", "PARAM_VALUE_TYPE_MISMATCH",
                "UNKNOWN_CONDITION_REFERENCE", "INVALID_KEY", "DUPLICATE_KEY", "INVALID_IN_APP_DEFAULT_VALUE",
            ])
        #expect(reply.errorFields.contains("conditions[2].expression"))
        #expect(reply.errorFields.contains("parameters.flag.conditionalValues.missing"))
        #expect(reply.errorFields.contains("parameterGroups.g.parameters.dup"))
        let parseError = reply.errorDetails.first { $0.field == "conditions[2].expression" }?.message
        #expect(parseError?.contains("broken") == true && parseError?.contains(" at ") == true)
    }

    @Test func limitsAreEnforced() async throws {
        var parameters = JSONObject()
        for index in 0..<3001 { parameters["p\(index)"] = ["defaultValue": ["value": "x"]] }
        let tooMany = try await rejected(["parameters": .object(parameters)])
        #expect(tooMany.errorReasons == ["LIMIT_EXCEEDED"])

        let longKey = String(repeating: "k", count: 257)
        let keyReply = try await rejected(["parameters": [longKey: ["defaultValue": ["value": "x"]]]])
        #expect(keyReply.errorReasons == ["INVALID_KEY"])

        let atoms = Array(repeating: "device.os == 'ios'", count: 51).joined(separator: " && ")
        let atomReply = try await rejected(["conditions": [["name": "many", "expression": .string(atoms)]]])
        #expect(atomReply.errorReasons == ["LIMIT_EXCEEDED"])

        let longName = String(repeating: "c", count: 101)
        let nameReply = try await rejected(["conditions": [["name": .string(longName), "expression": "true"]]])
        #expect(nameReply.errorFields == ["conditions[0].name"])
    }

    @Test func malformedJSONNamesThePosition() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let reply = try await app.call(
                .put, "/v1/projects/shop-app/remoteConfig", raw: ByteBuffer(string: "{\"parameters\": {,}}"),
                headers: [.ifMatch: "*"])
            #expect(reply.status == 400)
            #expect(reply.errorReasons == ["MALFORMED_JSON"])
        }
    }
}
