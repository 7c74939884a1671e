import Foundation
import Testing

@testable import RemoteConfigClient

@Suite struct DefaultsTests {
    /// What `remoteConfig:downloadDefaults?format=PLIST` produces: every value a string.
    static let downloadedPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
          <key>require_force_update</key>
          <string>false</string>
          <key>current_version</key>
          <string>2.3.0</string>
          <key>banner</key>
          <string>{"title":"Sale &amp; more"}</string>
        </dict>
        </plist>
        """

    /// A hand-written plist with typed values.
    static let typedPlist = """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0">
        <dict>
          <key>flag</key><true/>
          <key>off</key><false/>
          <key>count</key><integer>3</integer>
          <key>ratio</key><real>0.25</real>
          <key>name</key><string>shop</string>
          <key>list</key><array><integer>1</integer><string>a</string></array>
          <key>nested</key><dict><key>k</key><string>v</string></dict>
        </dict>
        </plist>
        """

    @Test func downloadedPlistDefaults() throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        try config.setDefaults(plistData: Data(Self.downloadedPlist.utf8))
        #expect(config["current_version"].stringValue == "2.3.0")
        #expect(config["require_force_update"].boolValue == false)
        #expect(config["banner"].stringValue == #"{"title":"Sale & more"}"#)
        #expect(config["banner"].source == .default)
    }

    @Test func typedPlistValuesBecomeText() throws {
        let values = try DefaultsParser.parsePropertyList(Data(Self.typedPlist.utf8))
        #expect(values["flag"] == "true")
        #expect(values["off"] == "false")
        #expect(values["count"] == "3")
        #expect(values["ratio"] == "0.25")
        #expect(values["name"] == "shop")
        #expect(values["list"] == #"[1,"a"]"#)
        #expect(values["nested"] == #"{"k":"v"}"#)
    }

    @Test func jsonDefaults() throws {
        let json = #"{"welcome":"Hi","max_items":20,"dark":true,"ratio":1.5,"cfg":{"a":[1,2]},"gone":null}"#
        let values = try DefaultsParser.parseJSON(Data(json.utf8))
        #expect(values["welcome"] == "Hi")
        #expect(values["max_items"] == "20")
        #expect(values["dark"] == "true")
        #expect(values["ratio"] == "1.5")
        #expect(values["cfg"] == #"{"a":[1,2]}"#)
        #expect(values["gone"] == nil)
    }

    @Test func defaultsFromFiles() throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        let plistURL = harness.directory.appendingPathComponent("RemoteConfigDefaults.plist")
        try Data(Self.downloadedPlist.utf8).write(to: plistURL)
        try config.setDefaults(contentsOf: plistURL)
        #expect(config["current_version"].stringValue == "2.3.0")

        let jsonURL = harness.directory.appendingPathComponent("remote_config_defaults.json")
        try Data(#"{"current_version":"3.0"}"#.utf8).write(to: jsonURL)
        try config.setDefaults(contentsOf: jsonURL)
        #expect(config["current_version"].stringValue == "3.0")
        #expect(config["require_force_update"].source == .static, "setDefaults replaces the previous defaults")

        let noExtension = harness.directory.appendingPathComponent("defaults")
        try Data(#"  {"k":"v"}"#.utf8).write(to: noExtension)
        try config.setDefaults(contentsOf: noExtension)
        #expect(config["k"].stringValue == "v")

        #expect(throws: (any Error).self) {
            try config.setDefaults(contentsOf: harness.directory.appendingPathComponent("missing.json"))
        }
        #expect(config.setDefaults(fromPlist: "DoesNotExist") == false)
    }

    @Test func dictionaryDefaultsConvertTypes() {
        let values = DefaultsParser.strings(from: [
            "s": "text", "b": true, "i": 7, "d": 2.5, "n": NSNumber(value: 12),
            "data": Data("bytes".utf8), "arr": [1, 2], "obj": ["x": "y"], "null": NSNull(),
        ])
        #expect(values["s"] == "text")
        #expect(values["b"] == "true")
        #expect(values["i"] == "7")
        #expect(values["d"] == "2.5")
        #expect(values["n"] == "12")
        #expect(values["data"] == "bytes")
        #expect(values["arr"] == "[1,2]")
        #expect(values["obj"] == #"{"x":"y"}"#)
        #expect(values["null"] == nil)
    }

    @Test func invalidDefaultsThrowAndKeepPrevious() throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let config = harness.makeConfig()
        config.setDefaults(strings: ["k": "v"])
        #expect(throws: (any Error).self) { try config.setDefaults(jsonData: Data("[1,2]".utf8)) }
        #expect(throws: (any Error).self) { try config.setDefaults(plistData: Data("garbage".utf8)) }
        #expect(config["k"].stringValue == "v")
    }
}
