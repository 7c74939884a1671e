import Testing

@testable import RemoteConfigCore

@Suite("Template model")
struct TemplateTests {
    static let firebaseExample = #"""
        {
          "conditions": [
            {"name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])", "tagColor": "ORANGE"}
          ],
          "parameters": {
            "require_force_update": {
              "defaultValue": {"value": "false"},
              "conditionalValues": {"ios_too_old": {"value": "true"}},
              "valueType": "BOOLEAN",
              "description": "Block the app until it is updated"
            },
            "app_store_url": {"defaultValue": {"useInAppDefault": true}, "valueType": "STRING"}
          },
          "parameterGroups": {
            "force_update": {"description": "…", "parameters": {"current_version": {"defaultValue": {"value": "2.3.0"}, "valueType": "STRING"}}}
          },
          "version": {"versionNumber": "7", "updateTime": "2026-11-22T10:00:00.000Z", "updateUser": {"email": "…"},
                      "updateOrigin": "REST_API", "updateType": "INCREMENTAL_UPDATE", "description": "…", "rollbackSource": "5"}
        }
        """#

    @Test("API.md's example decodes into the model")
    func decodesExample() throws {
        let template = try RemoteConfigTemplate(json: Array(Self.firebaseExample.utf8))
        #expect(
            template.conditions == [
                Condition(
                    name: "ios_too_old",
                    expression: "device.os == 'ios' && app.version.<(['2.0.0'])",
                    tagColor: "ORANGE"
                )
            ])
        #expect(template.parameters.keys == ["require_force_update", "app_store_url"])
        let force = try #require(template.parameters["require_force_update"])
        #expect(force.defaultValue == .value("false"))
        #expect(force.conditionalValues["ios_too_old"] == .value("true"))
        #expect(force.valueType == .boolean)
        #expect(force.description == "Block the app until it is updated")
        #expect(template.parameters["app_store_url"]?.defaultValue == .useInAppDefault)
        #expect(
            template.parameterGroups["force_update"]?.parameters["current_version"]?.defaultValue == .value("2.3.0"))
        #expect(template.version?.versionNumber == "7")
        #expect(template.version?.updateUser?.email == "…")
        #expect(template.version?.rollbackSource == "5")
        #expect(template.allParameters.map(\.key) == ["require_force_update", "app_store_url", "current_version"])
    }

    @Test("encode then decode gives the same template, and the same bytes again")
    func roundTrip() throws {
        let template = try RemoteConfigTemplate(json: Array(Self.firebaseExample.utf8))
        let bytes = template.jsonBytes()
        let again = try RemoteConfigTemplate(json: bytes)
        #expect(again == template)
        #expect(again.jsonBytes() == bytes)
    }

    @Test("parameter and conditional value order is kept, even when not alphabetical")
    func orderKept() throws {
        var parameters = ""
        let keys = (0..<300).map { "p\((($0 * 7919) % 300))" }
        for key in keys {
            parameters +=
                #""\#(key)": {"defaultValue": {"value": "v"}, "conditionalValues": {"z": {"value": "1"}, "a": {"value": "2"}, "m": {"value": "3"}}},"#
        }
        parameters.removeLast()
        let text = #"{"conditions": [], "parameters": {\#(parameters)}}"#
        let template = try RemoteConfigTemplate(json: Array(text.utf8))
        #expect(template.parameters.keys == keys)
        #expect(template.parameters[keys[0]]?.conditionalValues.keys == ["z", "a", "m"])
        let encoded = try JSONValue(parsing: template.jsonBytes())
        #expect(encoded["parameters"]?.objectValue?.keys == keys)
        #expect(encoded["parameters"]?[keys[5]]?["conditionalValues"]?.objectValue?.keys == ["z", "a", "m"])
    }

    @Test("unknown members and other value kinds are kept and re-emitted")
    func unknownMembersRoundTrip() throws {
        let text = #"""
            {"conditions": [{"name": "c", "expression": "true", "futureField": [1, 2]}],
             "parameters": {"p": {
                "defaultValue": {"rolloutValue": {"rolloutId": "rollout_1", "value": "x", "percent": 10}},
                "conditionalValues": {
                  "c": {"personalizationValue": {"personalizationId": "abc"}},
                  "d": {"experimentValue": {"experimentId": "e1", "variantValue": [{"variantId": "A", "value": "1"}]}}
                },
                "extraParam": {"deep": true}}},
             "etag": "etag-123",
             "version": {"versionNumber": "3", "isLegacy": false, "updateUser": {"email": "a@b", "imageUrl": "u"}}}
            """#
        let template = try RemoteConfigTemplate(json: Array(text.utf8))
        #expect(template.extra["etag"] == .string("etag-123"))
        #expect(template.conditions[0].extra["futureField"] == .array([.integer(1), .integer(2)]))
        let parameter = try #require(template.parameters["p"])
        #expect(parameter.valueType == .string)
        #expect(parameter.extra["extraParam"] != nil)
        guard case .other(let rollout) = parameter.defaultValue else {
            Issue.record("rolloutValue should be kept as .other")
            return
        }
        #expect(rollout["rolloutValue"]?["rolloutId"] == .string("rollout_1"))
        #expect(template.version?.extra["isLegacy"] == .bool(false))
        #expect(template.version?.updateUser?.extra["imageUrl"] == .string("u"))

        let reencoded = try JSONValue(parsing: template.jsonBytes())
        let original = try JSONValue(parsing: text)
        #expect(reencoded["etag"] == original["etag"])
        #expect(reencoded["conditions"] == original["conditions"])
        #expect(reencoded["parameters"]?["p"]?["defaultValue"] == original["parameters"]?["p"]?["defaultValue"])
        #expect(
            reencoded["parameters"]?["p"]?["conditionalValues"] == original["parameters"]?["p"]?["conditionalValues"]
        )
        #expect(reencoded["parameters"]?["p"]?["extraParam"] == original["parameters"]?["p"]?["extraParam"])
        #expect(reencoded["version"]?["isLegacy"] == .bool(false))
        #expect(reencoded["version"]?["updateUser"]?["imageUrl"] == .string("u"))
    }

    @Test("value shapes: only exact forms become value/useInAppDefault")
    func valueShapes() throws {
        #expect(ParameterValue(json: ["value": .string("1")]) == .value("1"))
        #expect(ParameterValue(json: ["useInAppDefault": .bool(true)]) == .useInAppDefault)
        #expect(ParameterValue(json: ["useInAppDefault": .bool(false)]).stringValue == nil)
        if case .other = ParameterValue(json: ["value": .integer(1)]) {} else { Issue.record("number value") }
        if case .other = ParameterValue(json: ["value": .string("1"), "useInAppDefault": .bool(true)]) {
        } else {
            Issue.record("both forms")
        }
    }

    @Test("empty and minimal documents")
    func minimal() throws {
        let empty = try RemoteConfigTemplate(json: Array("{}".utf8))
        #expect(empty == RemoteConfigTemplate())
        #expect(
            String(decoding: empty.jsonBytes(), as: UTF8.self)
                == #"{"conditions":[],"parameters":{},"parameterGroups":{}}"#)
        let nulls = try RemoteConfigTemplate(
            json: Array(#"{"conditions": null, "parameters": null, "version": null}"#.utf8))
        #expect(nulls == RemoteConfigTemplate())
    }

    @Test(
        "shape errors name the field",
        arguments: [
            (#"[]"#, ""),
            (#"{"conditions": {}}"#, "conditions"),
            (#"{"conditions": [{"expression": "true"}]}"#, "conditions[0].name"),
            (#"{"conditions": [{"name": "a", "expression": 1}]}"#, "conditions[0].expression"),
            (#"{"parameters": {"p": {"valueType": "FLOAT"}}}"#, "parameters.p.valueType"),
            (#"{"parameters": {"p": {"defaultValue": "x"}}}"#, "parameters.p.defaultValue"),
            (#"{"parameters": {"p": {"conditionalValues": {"c": 1}}}}"#, "parameters.p.conditionalValues.c"),
            (#"{"parameterGroups": {"g": {"parameters": {"p": 3}}}}"#, "parameterGroups.g.parameters.p"),
            (#"{"version": {"updateUser": 1}}"#, "version.updateUser"),
        ]
    )
    func shapeErrors(text: String, field: String) {
        do {
            _ = try RemoteConfigTemplate(json: Array(text.utf8))
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.field == field)
            #expect(error.byteOffset == nil)
        }
    }

    @Test("malformed JSON reports the byte offset")
    func malformedJSON() {
        do {
            _ = try RemoteConfigTemplate(json: Array(#"{"parameters": {"#.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.byteOffset == 16)
        }
    }

    @Test("numeric version numbers are accepted as text")
    func numericVersion() throws {
        let template = try RemoteConfigTemplate(json: Array(#"{"version": {"versionNumber": 12}}"#.utf8))
        #expect(template.version?.versionNumber == "12")
    }

    @Test("OrderedStringMap keeps order through edits")
    func orderedMap() {
        var map: OrderedStringMap<Int> = ["b": 1, "a": 2, "c": 3]
        map["a"] = 20
        map["b"] = nil
        map["d"] = 4
        #expect(map.keys == ["a", "c", "d"])
        #expect(map.values == [20, 3, 4])
        #expect(map.index(forKey: "d") == 2)
        #expect(Array(map.map(\.0)) == ["a", "c", "d"])
    }
}
