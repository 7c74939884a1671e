import Foundation
import HTTPTypes
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// The same caller asks through a fetch and through OFREP's bulk evaluation and gets the same thing: for
/// every parameter, the OFREP value (typed) is the fetch entry (a string), and a parameter the fetch leaves
/// out is OFREP's code-default answer; the reason and variant name the condition a preview says decided.
@Suite struct OFREPAgreementTests {
    /// Conditions on everything a caller can send, percent buckets included.
    static var template: [String: Any] {
        [
            "conditions": [
                ["name": "old_ios", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])"],
                ["name": "android_beta", "expression": "device.os == 'android' && app.build.>=(['300'])"],
                ["name": "japan", "expression": "device.country in ['jp'] || device.language in ['ja']"],
                ["name": "rollout", "expression": "percent('seed') between 10 and 60"],
                ["name": "pro", "expression": "app.customSignal['plan'] == 'pro'"],
                ["name": "big_cart", "expression": "app.customSignal['cart'] >= 3"],
                ["name": "beta_user", "expression": "app.customSignal['beta'] == 'true'"],
                ["name": "shop_app", "expression": "app.id == 'com.example.shop'"],
                ["name": "early", "expression": "app.firstOpenTimestamp <= ('2026-01-01T00:00:00')"],
                ["name": "web", "expression": "device.os == 'web' || percent <= 5"],
            ],
            "parameters": [
                "force": [
                    "defaultValue": ["value": "false"],
                    "conditionalValues": ["old_ios": ["value": "true"], "android_beta": ["value": "true"]],
                    "valueType": "BOOLEAN",
                ],
                "greeting": [
                    "defaultValue": ["value": "hello"],
                    "conditionalValues": [
                        "japan": ["value": "こんにちは"], "rollout": ["value": "hi"], "beta_user": ["useInAppDefault": true],
                    ],
                    "valueType": "STRING",
                ],
                "limit": [
                    "defaultValue": ["value": "10"],
                    "conditionalValues": [
                        "pro": ["value": "25.5"], "big_cart": ["value": "-3e2"], "web": ["value": ".5"],
                    ],
                    "valueType": "NUMBER",
                ],
                "theme": [
                    "defaultValue": ["value": #"{"color": "blue", "sizes": [1, 2]}"#],
                    "conditionalValues": ["shop_app": ["value": #"["a", null, true]"#], "early": ["value": "42"]],
                    "valueType": "JSON",
                ],
                "store_url": [
                    "defaultValue": ["useInAppDefault": true],
                    "conditionalValues": ["old_ios": ["value": "https://apps.apple.com/app/id1"]],
                ],
            ],
            "parameterGroups": [
                "extras": [
                    "parameters": [
                        "banner": [
                            "defaultValue": ["value": "true"], "conditionalValues": ["rollout": ["value": "false"]],
                            "valueType": "BOOLEAN",
                        ]
                    ]
                ]
            ],
        ]
    }

    /// A deterministic generator, so a failure names a context that can be run again.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        mutating func pick<T>(_ items: [T]) -> T { items[Int(next() % UInt64(items.count))] }
        mutating func maybe(_ value: Any) -> Any? { next() % 3 == 0 ? nil : value }
    }

    /// The fetch body and the OFREP context of one caller.
    static func caller(_ index: Int, _ random: inout Generator) -> (fetch: [String: Any], ofrep: [String: Any]) {
        var fetch: [String: Any] = ["appInstanceId": "install-\(index)-\(random.next())"]
        var signals: [String: Any] = [:]
        let attributes: [(String, Any?)] = [
            ("platform", random.maybe(random.pick(["IOS", "ANDROID", "WEB", "ios"]))),
            ("appVersion", random.maybe(random.pick(["1.0", "1.9.9", "2.0.0", "2.10.1"]))),
            ("appBuild", random.maybe(random.pick(["12", "299", "300", "1000"]))),
            ("countryCode", random.maybe(random.pick(["JP", "us", "GB"]))),
            ("languageCode", random.maybe(random.pick(["ja-JP", "en_GB", "pt"]))),
            ("appId", random.maybe(random.pick(["com.example.shop", "com.example.other"]))),
            ("firstOpenTime", random.maybe(random.pick(["2025-06-01T00:00:00Z", "2026-06-01T00:00:00Z"]))),
        ]
        for case (let name, let value?) in attributes { fetch[name] = value }
        if let plan = random.maybe(random.pick(["pro", "free"])) { signals["plan"] = plan }
        if let cart = random.maybe(random.pick([0, 3, 7, 2.5])) { signals["cart"] = cart }
        var ofrep = fetch
        ofrep.removeValue(forKey: "appInstanceId")
        ofrep["targetingKey"] = fetch["appInstanceId"]
        for (name, value) in signals { ofrep[name] = value }
        // A boolean attribute is the signal "true" or "false".
        if random.next() % 2 == 0 {
            let beta = random.next() % 2 == 0
            ofrep["beta"] = beta
            signals["beta"] = beta ? "true" : "false"
        }
        if !signals.isEmpty { fetch["customSignals"] = signals }
        return (fetch, ofrep)
    }

    /// Whether a typed OFREP value of `type` is the fetch string `text`, compared as values (numbers and JSON
    /// by value).
    static func same(_ typed: Any, _ text: String, type: String, raw: JSONValue?) -> Bool {
        switch type {
        case "BOOLEAN": return (typed as? Bool).map { $0 ? "true" : "false" } == text
        case "NUMBER": return (typed as? NSNumber)?.doubleValue == Double(text)
        // Compared as parsed by the server's own JSON reader: Foundation's on Linux reads `true` inside an
        // array as the number 1.
        case "JSON": return raw != nil && raw == (try? JSONValue(parsing: text))
        default: return typed as? String == text
        }
    }

    /// Each flag's `value` of a bulk answer, as JSON values, by key.
    static func rawValues(_ body: Data) -> [String: JSONValue] {
        guard let parsed = try? JSONValue(parsing: Array(body)), case .array(let flags)? = parsed["flags"] else {
            return [:]
        }
        var values: [String: JSONValue] = [:]
        for flag in flags {
            if case .string(let key)? = flag["key"], let value = flag["value"] { values[key] = value }
        }
        return values
    }

    @Test func bulkAndFetchAgreeForGeneratedCallers() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            #expect(try await app.publish("shop-app", Self.template).status == 200)
            let key = try await app.createKey(role: "client", project: "shop-app").secret
            var random = Generator(state: 20_261_125)
            var mismatches: [String] = []
            var reasons: [String: Int] = [:]
            for index in 0..<300 {
                let (body, context) = Self.caller(index, &random)
                let fetch = try await ClientCalls.fetch(app, key: key, body)
                let bulk = try await app.call(
                    .post, "/ofrep/v1/evaluate/flags", token: nil, json: ["context": context],
                    headers: [.authorization: "Bearer \(key)"])
                #expect(fetch.status == 200 && bulk.status == 200, "\(fetch.text) \(bulk.text)")
                let entries = fetch.json["entries"] as? [String: String] ?? [:]
                let flags = bulk.json["flags"] as? [[String: Any]] ?? []
                #expect(flags.count == 6)
                // Which condition decided each parameter, by the preview (the evaluate route).
                let preview = try await app.call(
                    .post, "/v1/projects/shop-app/remoteConfig:evaluate", json: ["context": body])
                let decided = preview.json["parameters"] as? [String: [String: Any]] ?? [:]
                let raw = Self.rawValues(bulk.body)
                for flag in flags {
                    let name = flag["key"] as? String ?? "?"
                    let entry = entries[name]
                    switch (flag["value"], entry) {
                    case (nil, nil): break
                    case (let typed?, let text?)
                    where Self.same(
                        typed, text, type: (flag["metadata"] as? [String: Any])?["valueType"] as? String ?? "",
                        raw: raw[name]):
                        break
                    default: mismatches.append("caller \(index) \(name): ofrep \(flag) fetch \(entry ?? "nil")")
                    }
                    let condition = decided[name]?["condition"] as? String
                    let reason = flag["reason"] as? String ?? "?"
                    reasons[reason, default: 0] += 1
                    let expectedReason =
                        condition == nil
                        ? "STATIC" : ["rollout", "web"].contains(condition!) ? "SPLIT" : "TARGETING_MATCH"
                    if flag["variant"] as? String != (condition ?? "default") || reason != expectedReason {
                        mismatches.append(
                            "caller \(index) \(name): \(reason)/\(flag["variant"] ?? "") vs \(condition ?? "-")")
                    }
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
            #expect(reasons.keys.sorted() == ["SPLIT", "STATIC", "TARGETING_MATCH"], "every reason occurs: \(reasons)")
        }
    }
}
