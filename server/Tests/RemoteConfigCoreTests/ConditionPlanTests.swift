import Foundation
import RemoteConfigTestHistories
import Testing

@testable import RemoteConfigCore

/// The flat plan a template's signature is evaluated from gives every condition the truth the condition
/// tree gives it: nesting, negation, short-circuits and inputs not sent (unknown) included.
@Suite struct ConditionPlanTests {
    static let expressions = [
        "device.os == 'ios' && app.version.<(['2.5.0'])",
        "!(device.os == 'android') || percent <= 30",
        "(device.country in ['jp', 'us'] || app.build.>(['200'])) && !(percent('s1') between 10 and 60)",
        "app.customSignal['plan'] == 'pro' || app.customSignal['cart'] > 2",
        "!(app.customSignal['plan'] == 'free' && (percent('s2') <= 50 || device.language in ['ja-JP']))",
        "true && (false || app.userProperty['tier'] == 'gold')",
        "false",
        "!true || device.os == 'ios' && app.version.>=(['1.0.0']) && app.build.<=(['300'])",
    ]

    static var template: RemoteConfigTemplate {
        var conditions: [Condition] = []
        var conditionalValues = OrderedStringMap<ParameterValue>()
        for (index, expression) in expressions.enumerated() {
            conditions.append(Condition(name: "c\(index)", expression: expression))
            conditionalValues["c\(index)"] = .value("v\(index)")
        }
        return RemoteConfigTemplate(
            conditions: conditions,
            parameters: ["p": Parameter(defaultValue: .value("d"), conditionalValues: conditionalValues)])
    }

    @Test func everyConditionHasTheTreesTruth() throws {
        let compiled = try CompiledTemplate(Self.template)
        #expect(compiled.usedConditions.count == Self.expressions.count)
        var random = SeededGenerator(seed: 37)
        func maybe<T>(_ value: T) -> T? { Bool.random(using: &random) ? value : nil }
        for index in 0..<2_000 {
            var signals: [String: SignalValue] = [:]
            if let plan = maybe(["pro", "free"].randomElement(using: &random)!) { signals["plan"] = .string(plan) }
            if let cart = maybe(Int.random(in: 0...5, using: &random)) { signals["cart"] = .number(Double(cart)) }
            let context = FetchContext(
                appInstanceId: maybe("install-\(index)"),
                platform: maybe(Bool.random(using: &random) ? .ios : .android),
                appVersion: maybe(
                    "\(Int.random(in: 0...3, using: &random)).\(Int.random(in: 0...9, using: &random)).0"),
                appBuild: maybe(String(Int.random(in: 90...400, using: &random))),
                countryCode: maybe(["JP", "US", "DE"].randomElement(using: &random)!),
                languageCode: maybe(["ja-JP", "en-US"].randomElement(using: &random)!), customSignals: signals,
                userProperties: maybe(["tier": "gold"]) ?? [:], now: referenceNow)
            let signature = compiled.signature(for: context)
            let truths = compiled.evaluateConditions(context)
            for (bit, condition) in compiled.usedConditions.enumerated() {
                #expect(signature.contains(bit) == (truths[Int(condition)].truth == .true), "c\(condition), \(context)")
            }
        }
    }
}
