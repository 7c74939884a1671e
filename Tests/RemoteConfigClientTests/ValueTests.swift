import Foundation
import Testing

@testable import RemoteConfigClient

@Suite struct ValueTests {
    @Test(arguments: [
        ("1", true), ("true", true), ("TRUE", true), ("True", true), ("t", true), ("T", true),
        ("yes", true), ("YES", true), ("y", true), ("Y", true), ("on", true), ("ON", true), (" on ", true),
        ("0", false), ("false", false), ("f", false), ("no", false), ("n", false), ("off", false),
        ("", false), ("2", false), ("truthy", false), ("yes please", false), ("1.0", false),
    ])
    func boolValueParsing(text: String, expected: Bool) {
        #expect(RemoteConfigValue(stringValue: text, source: .remote).boolValue == expected)
    }

    @Test func numberValues() {
        #expect(RemoteConfigValue(stringValue: "42", source: .remote).numberValue.intValue == 42)
        #expect(RemoteConfigValue(stringValue: "3.5", source: .remote).numberValue.doubleValue == 3.5)
        #expect(RemoteConfigValue(stringValue: "-7", source: .remote).intValue == -7)
        #expect(RemoteConfigValue(stringValue: "9.9", source: .remote).intValue == 9)
        #expect(RemoteConfigValue(stringValue: "abc", source: .remote).numberValue.doubleValue == 0)
        #expect(RemoteConfigValue(stringValue: "nan", source: .remote).doubleValue == 0)
        #expect(RemoteConfigValue(stringValue: "", source: .static).intValue == 0)
    }

    @Test func dataAndJSONValues() throws {
        struct Banner: Decodable, Equatable {
            var title: String
            var items: [Int]
        }
        let value = RemoteConfigValue(stringValue: #"{"title":"Sale","items":[1,2]}"#, source: .remote)
        #expect(value.dataValue == Data(#"{"title":"Sale","items":[1,2]}"#.utf8))
        #expect(try value.decode(Banner.self) == Banner(title: "Sale", items: [1, 2]))
        #expect((value.jsonValue as? [String: Any])?["title"] as? String == "Sale")
        #expect(RemoteConfigValue(stringValue: "not json", source: .remote).jsonValue == nil)
        #expect(throws: (any Error).self) {
            try RemoteConfigValue(stringValue: "{", source: .remote).decode(Banner.self)
        }
    }

    @Test func sourcesAndLookupBeforeAnyFetch() {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.setDefaults(["welcome": "Hello", "max_items": 10, "dark_mode": true])

        #expect(config.lastFetchStatus == .noFetchYet)
        #expect(config.lastFetchTime == nil)
        #expect(config["welcome"].stringValue == "Hello")
        #expect(config["welcome"].source == .default)
        #expect(config["max_items"].numberValue.intValue == 10)
        #expect(config["dark_mode"].boolValue)
        #expect(config["missing"].source == .static)
        #expect(config["missing"].stringValue == "")
        #expect(config.configValue(forKey: nil).source == .static)
        #expect(config.configValue(forKey: "welcome", source: .remote).source == .static)
        #expect(config.defaultValue(forKey: "welcome")?.stringValue == "Hello")
        #expect(config.defaultValue(forKey: "missing") == nil)
        #expect(config.allKeys(from: .default) == ["dark_mode", "max_items", "welcome"])
        #expect(config.allKeys(from: .remote).isEmpty)
        #expect(config.allKeys(from: .static).isEmpty)
        #expect(config.keys(withPrefix: "ma") == ["max_items"])
        #expect(harness.transport.fetchCount == 0)
    }
}
