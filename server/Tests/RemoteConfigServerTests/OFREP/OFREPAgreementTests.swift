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
    static var template: JSONValue {
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
        mutating func maybe<T>(_ value: T) -> T? { next() % 3 == 0 ? nil : value }
    }

    /// The fetch body and the OFREP context of one caller.
    static func caller(_ index: Int, _ random: inout Generator) -> (fetch: JSONValue, ofrep: JSONValue) {
        var fetch: JSONObject = ["appInstanceId": "install-\(index)-\(random.next())"]
        var signals = JSONObject()
        let attributes: [(String, JSONValue?)] = [
            ("platform", random.maybe(random.pick(["IOS", "ANDROID", "WEB", "ios"]))),
            ("appVersion", random.maybe(random.pick(["1.0", "1.9.9", "2.0.0", "2.10.1"]))),
            ("appBuild", random.maybe(random.pick(["12", "299", "300", "1000"]))),
            ("countryCode", random.maybe(random.pick(["JP", "us", "GB"]))),
            ("languageCode", random.maybe(random.pick(["ja-JP", "en_GB", "pt"]))),
            ("appId", random.maybe(random.pick(["com.example.shop", "com.example.other"]))),
            ("firstOpenTime", random.maybe(random.pick(["2025-06-01T00:00:00Z", "2026-06-01T00:00:00Z"]))),
        ]
        for case (let name, let value?) in attributes { fetch[name] = value }
        if let plan = random.maybe(random.pick(["pro", "free"])) { signals["plan"] = .string(plan) }
        if let cart = random.maybe(random.pick([0, 3, 7, 2.5] as [JSONValue])) { signals["cart"] = cart }
        var ofrep = fetch
        ofrep["appInstanceId"] = nil
        ofrep["targetingKey"] = fetch["appInstanceId"]
        for signal in signals { ofrep[signal.key] = signal.value }
        // A boolean attribute is the signal "true" or "false".
        if random.next() % 2 == 0 {
            let beta = random.next() % 2 == 0
            ofrep["beta"] = .bool(beta)
            signals["beta"] = beta ? "true" : "false"
        }
        if !signals.isEmpty { fetch["customSignals"] = .object(signals) }
        return (.object(fetch), .object(ofrep))
    }

    /// Whether a typed OFREP value of `type` is the fetch string `text`, compared as values (numbers and JSON
    /// by value).
    static func same(_ typed: JSONValue, _ text: String, type: String) -> Bool {
        switch type {
        case "BOOLEAN": return typed.boolValue.map { $0 ? "true" : "false" } == text
        case "NUMBER": return typed.doubleValue != nil && typed.doubleValue == Double(text)
        case "JSON": return typed == (try? JSONValue(parsing: text))
        default: return typed.stringValue == text
        }
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
                let entryMembers = fetch.value["entries"]?.objectValue ?? [:]
                let entries = Dictionary(
                    uniqueKeysWithValues: entryMembers.compactMap { member in
                        member.value.stringValue.map { (member.key, $0) }
                    })
                #expect(entries.count == entryMembers.count, "every entry is a string: \(fetch.text)")
                let flags = bulk.value["flags"]?.arrayValue ?? []
                #expect(flags.count == 6)
                // Which condition decided each parameter, by the preview (the evaluate route).
                let preview = try await app.call(
                    .post, "/v1/projects/shop-app/remoteConfig:evaluate", json: ["context": body])
                let decided = preview.value["parameters"]
                for flag in flags {
                    let name = flag["key"]?.stringValue ?? "?"
                    let entry = entries[name]
                    switch (flag["value"], entry) {
                    case (nil, nil): break
                    case (let typed?, let text?)
                    where Self.same(typed, text, type: flag["metadata"]?["valueType"]?.stringValue ?? ""):
                        break
                    default:
                        mismatches.append("caller \(index) \(name): ofrep \(flag.jsonString) fetch \(entry ?? "nil")")
                    }
                    let condition = decided?[name]?["condition"]?.stringValue
                    let reason = flag["reason"]?.stringValue ?? "?"
                    reasons[reason, default: 0] += 1
                    let expectedReason =
                        condition == nil
                        ? "STATIC" : ["rollout", "web"].contains(condition!) ? "SPLIT" : "TARGETING_MATCH"
                    if flag["variant"]?.stringValue != (condition ?? "default") || reason != expectedReason {
                        mismatches.append(
                            "caller \(index) \(name): \(reason)/\(flag["variant"]?.jsonString ?? "") vs \(condition ?? "-")"
                        )
                    }
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
            #expect(reasons.keys.sorted() == ["SPLIT", "STATIC", "TARGETING_MATCH"], "every reason occurs: \(reasons)")
        }
    }
}
