import Foundation
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The plist and XML defaults files always parse: a character XML 1.0 cannot hold is refused at publish,
/// naming the parameter, and every other value reads back exactly as it was published.
@Suite struct DefaultsFileCharacterTests {
    /// Reads `<key>…</key><value>…</value>` pairs of the XML defaults file; nil when it does not parse.
    final class EntryReader: NSObject, XMLParserDelegate {
        var entries: [String: String] = [:]
        private var key = ""
        private var text = ""

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) { text = "" }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "key" { key = text }
            if name == "value" { entries[key] = text }
        }

        static func read(_ data: Data) -> [String: String]? {
            let parser = XMLParser(data: data)
            let reader = EntryReader()
            parser.delegate = reader
            return parser.parse() ? reader.entries : nil
        }
    }

    static func template(_ values: [String: String], conditional: String? = nil) -> JSONValue {
        var parameters = JSONObject()
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            parameters[key] = ["defaultValue": ["value": .string(value)], "valueType": "STRING"]
        }
        var template: JSONObject = [:]
        if let conditional {
            template["conditions"] = [["name": "ios", "expression": "device.os == 'ios'"]]
            parameters["greeting"] = [
                "defaultValue": ["value": "hi"], "conditionalValues": ["ios": ["value": .string(conditional)]],
                "valueType": "STRING",
            ]
        }
        template["parameters"] = .object(parameters)
        return .object(template)
    }

    @Test func aCharacterXMLCannotHoldIsRefusedNamingTheParameter() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            for bad in ["a\u{1}b", "\u{0}", "bell\u{7}", "esc\u{1B}[31m", "\u{8}", "x\u{FFFE}", "x\u{FFFF}", "\u{1F}"] {
                let reply = try await app.publish("shop-app", Self.template(["banner": bad]))
                #expect(reply.status == 400, "\(bad.debugDescription): \(reply.text)")
                #expect(reply.errorReasons == ["INVALID_CHARACTER"], "\(bad.debugDescription): \(reply.text)")
                #expect(reply.text.contains("parameters.banner.defaultValue.value"), "\(reply.text)")
            }
            let conditional = try await app.publish("shop-app", Self.template([:], conditional: "hey\u{1}"))
            #expect(conditional.errorReasons == ["INVALID_CHARACTER"])
            #expect(conditional.text.contains("parameters.greeting.conditionalValues.ios.value"), "\(conditional.text)")
            let versions = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
            #expect(versions.value["versions"]?.arrayValue?.isEmpty ?? true, "a refused publish stored a version")
        }
    }

    @Test func everyAllowedValueReadsBackExactlyFromPlistAndXML() async throws {
        let values = [
            "tab": "a\tb", "lines": "one\ntwo", "carriage": "cr\rthen crlf\r\nend", "markup": "<b>&amp;\"'</b> ]]>",
            "emoji": "🎉 café ✓", "replacement": "\u{FFFD}", "nel": "next\u{85}line", "spaces": "  padded  ",
            "astral": "\u{10FFFF}\u{1F600}",
        ]
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            let published = try await app.publish("shop-app", Self.template(values))
            #expect(published.status == 200, "\(published.text)")
            let base = "/v1/projects/shop-app/remoteConfig:downloadDefaults"
            let plist = try await app.call(.get, base + "?format=PLIST")
            let read = try PropertyListSerialization.propertyList(from: plist.body, format: nil) as? [String: String]
            #expect(read == values, "\(plist.text)")
            let xml = try await app.call(.get, base + "?format=XML")
            #expect(EntryReader.read(xml.body) == values, "\(xml.text)")
        }
    }

    @Test func aValueStoredBeforeTheCheckStillMakesFilesThatParse() throws {
        let defaults = [("legacy", "a\u{1}b\u{FFFF}c\u{0}"), ("plain", "ok")]
        let expected = ["legacy": "a\u{FFFD}b\u{FFFD}c\u{FFFD}", "plain": "ok"]
        let (plist, _) = DefaultsFile.render(defaults, as: .plist)
        let read = try PropertyListSerialization.propertyList(from: Data(plist), format: nil) as? [String: String]
        #expect(read == expected)
        let (xml, _) = DefaultsFile.render(defaults, as: .xml)
        #expect(EntryReader.read(Data(xml)) == expected)
    }
}
