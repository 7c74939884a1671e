import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// What other keys stored (condition names, descriptions) reaches a person's terminal as text, never as a
/// terminal command: control characters are shown escaped in tables and reports, and `--json` stays exact.
@Suite struct CommandLineEscapingTests {
    static let token = "rc_admin_escapingProcessToken00000000000"
    /// A clipboard write (OSC 52), a screen clear, the same in C1 (CSI as one character), and a forged line.
    static let clipboard = "\u{1B}]52;c;ZWNobyBwd25lZA==\u{07}"
    static let clear = "\u{1B}[2J\u{1B}[H"
    static let hostile = "ok\(clipboard)\(clear)\u{9B}2J\r\nSTATE  PUBLISHED"
    static let condition = "ios\(clipboard)\u{9B}2J"

    static func call(_ method: String, _ url: String, _ body: JSONValue?, key: String? = nil) async throws
        -> HTTP.Reply
    {
        var headers = ["Content-Type": "application/json", "If-Match": "*"]
        if let key { headers["X-API-Key"] = key } else { headers["Authorization"] = "Bearer \(token)" }
        return try await HTTP.request(method, url, headers: headers, body: body.map(HTTP.json))
    }

    /// `welcome`, `value` by default and `when` under the hostile condition; with a version description if given.
    static func template(_ value: String, when: String = "yo", description: String? = nil) -> JSONValue {
        var conditional = JSONObject()
        conditional[condition] = ["value": .string(when)]
        var template: JSONObject = [
            "conditions": [["name": .string(condition), "expression": "device.os == 'ios'"]],
            "parameters": [
                "welcome": [
                    "defaultValue": ["value": .string(value)], "conditionalValues": .object(conditional),
                    "valueType": "STRING", "description": .string(hostile),
                ]
            ],
        ]
        if let description { template["version"] = ["description": .string(description)] }
        return .object(template)
    }

    /// The scalars a terminal acts on: C0 but the line feed, DEL and C1.
    static func commands(_ text: String) -> [UInt32] {
        text.unicodeScalars.map(\.value).filter { ($0 < 0x20 && $0 != 0x0A) || (0x7F...0x9F).contains($0) }
    }

    static func expectEscaped(_ run: CommandLineRun, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "\(run)", sourceLocation: sourceLocation)
        #expect(
            commands(run.stdout).isEmpty, "\(run.arguments): \(commands(run.stdout))", sourceLocation: sourceLocation)
        #expect(
            commands(run.stderr).isEmpty, "\(run.arguments): \(commands(run.stderr))", sourceLocation: sourceLocation)
        #expect(run.stdout.contains("\\u{1B}]52;c;"), "\(run.stdout)", sourceLocation: sourceLocation)
        #expect(!run.stdout.contains("\nSTATE  PUBLISHED"), "\(run.stdout)", sourceLocation: sourceLocation)
    }

    @Test func versionsInsightsAndChangeRequestsPrintControlCharactersEscapedAndJSONExactly() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let server = try ServerProcess(
            [
                "serve", "--port", "0", "--database-url", ServeCommandTests.urlText(url), "--insights-flush-interval",
                "1",
            ],
            environment: ["RC_ADMIN_TOKEN": Self.token])
        defer { Task { await server.stop() } }
        let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
        let environment = ["RC_SERVER": base, "RC_TOKEN": Self.token]
        #expect(try await Self.call("POST", base + "/v1/projects", ["projectId": "shop-app"]).status == 201)
        let published = try await Self.call(
            "PUT", base + "/v1/projects/shop-app/remoteConfig", Self.template("hi", description: Self.hostile))
        #expect(published.status == 200, "\(published.text)")
        let opened = try await Self.call(
            "POST", base + "/v1/projects/shop-app/remoteConfig/changeRequests",
            ["description": .string(Self.hostile), "template": Self.template("hello", when: "hey")])
        #expect(opened.status == 201, "\(opened.text)")
        let id = (opened.value["name"]?.stringValue ?? "").replacingOccurrences(of: "changeRequests/", with: "")

        let versions = try await CommandLineRun.run(
            ["template", "versions", "-p", "shop-app"], environment: environment)
        Self.expectEscaped(versions)
        let list = try await CommandLineRun.run(["changes", "list", "-p", "shop-app"], environment: environment)
        Self.expectEscaped(list)
        let show = try await CommandLineRun.run(["changes", "show", "-p", "shop-app", id], environment: environment)
        Self.expectEscaped(show)
        #expect(show.stdout.contains("ios\\u{1B}]52;c;"), "\(show.stdout)")

        // Counted answers name the condition: a fetch that matches it, flushed within a second or two.
        let key = try await Self.call("POST", base + "/v1/apiKeys", ["role": "client", "project": "shop-app"])
        let secret = try #require(try key.decode(APIKey.self).key)
        let fetch = try await Self.call(
            "POST", base + "/v1/projects/shop-app/remoteConfig:fetch",
            ["appInstanceId": "device-1", "platform": "IOS"],
            key: secret)
        #expect(fetch.status == 200)
        var insights = try await CommandLineRun.run(
            ["insights", "parameters", "-p", "shop-app"], environment: environment)
        let deadline = ContinuousClock.now + .seconds(20)
        while !insights.stdout.contains("MATCHED"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            insights = try await CommandLineRun.run(
                ["insights", "parameters", "-p", "shop-app"], environment: environment)
        }
        Self.expectEscaped(insights)

        // `--json` is data: the same text the server stored, to the scalar.
        let json = try await CommandLineRun.run(
            ["changes", "show", "-p", "shop-app", id, "--json"], environment: environment)
        #expect(json.status == 0, "\(json)")
        #expect(json.value["description"] == .string(Self.hostile), "\(json.stdout)")
        let insightsJSON = try await CommandLineRun.run(
            ["insights", "parameters", "-p", "shop-app", "--json"], environment: environment)
        #expect(insightsJSON.value["conditions"]?.objectValue?.keys.contains(Self.condition) == true)
    }
}
