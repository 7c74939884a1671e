// Measures full template resolutions per second (one fetch = evaluate the conditions a
// caller needs and pick every parameter's value) for a template at API.md's scale:
// 200 conditions, 3,000 parameters. Run in release:
//   swift run --package-path server -c release --scratch-path server/.build-core ConditionBenchmark [seconds]
import Foundation
import RemoteConfigCore

/// SplitMix64, so every run builds the same template and callers.
struct Generator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Builds the template and callers, then resolves in a loop for the given time.
func runBenchmark() throws {
    var random = Generator(state: 42)

    func pick<T>(_ values: [T]) -> T { values.randomElement(using: &random)! }

    let expressionShapes: [() -> String] = [
        {
            "device.os == '\(pick(["ios", "android", "web"]))' && app.version.<(['\(Int.random(in: 1...4, using: &random)).0.0'])"
        },
        { "device.country in ['jp', 'us', 'gb', 'de', 'fr', 'br', 'in', 'kr', 'ca', 'au'] && percent <= 50" },
        { "device.language in ['en', 'ja', 'pt-BR'] || app.customSignal['plan'].exactlyMatches(['pro', 'team'])" },
        {
            "percent('exp\(Int.random(in: 0..<10, using: &random))') between 10 and \(Int.random(in: 20...90, using: &random))"
        },
        { "app.customSignal['cart'] >= \(Int.random(in: 0...10, using: &random)) && app.build.>=(['100'])" },
        { "version(app.customSignal['sdk']) < '1.\(Int.random(in: 0...9, using: &random)).0' && device.os != 'web'" },
        { "dateTime >= dateTime('2026-12-01T00:00:00', 'Asia/Tokyo') && !(app.id == 'com.example.other')" },
        { "app.version.matches(['^2\\.[0-9]+\\.[0-9]+$']) && app.userProperty['tier'].contains(['gold'])" },
        { "app.firstOpenTimestamp > ('2026-01-01T00:00:00') && percent <= 30" },
    ]

    var conditions: [Condition] = []
    for index in 0..<200 {
        conditions.append(Condition(name: "c\(index)", expression: pick(expressionShapes)()))
    }
    var parameters = OrderedStringMap<Parameter>()
    for index in 0..<3_000 {
        var conditional = OrderedStringMap<ParameterValue>()
        for _ in 0..<Int.random(in: 0...2, using: &random) {
            conditional["c\(Int.random(in: 0..<200, using: &random))"] = .value("v\(index)-conditional")
        }
        let defaultValue: ParameterValue = index % 10 == 0 ? .useInAppDefault : .value("value-\(index)")
        parameters["param_\(index)"] = Parameter(defaultValue: defaultValue, conditionalValues: conditional)
    }
    let template = RemoteConfigTemplate(
        conditions: conditions, parameters: parameters, version: TemplateVersion(versionNumber: "1"))

    let compileStart = Date()
    let compiled = try CompiledTemplate(template)
    let compileSeconds = Date().timeIntervalSince(compileStart)

    let now = Date()
    let callers: [FetchContext] = (0..<1_024).map { index in
        FetchContext(
            appInstanceId: "installation-\(index)",
            appId: "com.example.shop",
            platform: pick([.ios, .android, .web]),
            appVersion: "\(Int.random(in: 1...3, using: &random)).\(Int.random(in: 0...9, using: &random)).0",
            appBuild: "\(Int.random(in: 50...200, using: &random))",
            countryCode: pick(["JP", "US", "GB", "NL"]),
            languageCode: pick(["en-GB", "ja-JP", "pt_BR", "nl"]),
            customSignals: ["plan": pick(["free", "pro"]), "cart": .number(Double(index % 12)), "sdk": "1.4.2"],
            userProperties: ["tier": pick(["gold", "silver"])],
            firstOpenTime: now.addingTimeInterval(-Double(index) * 86_400),
            now: now
        )
    }

    let seconds = CommandLine.arguments.count > 1 ? Double(CommandLine.arguments[1]) ?? 5 : 5
    var checksum = 0
    // Warm up caches and lazy regex compilation.
    for caller in callers { checksum &+= compiled.resolve(caller).entries.count }

    var resolutions = 0
    let start = Date()
    var elapsed = 0.0
    repeat {
        for caller in callers { checksum &+= compiled.resolve(caller).entries.count }
        resolutions += callers.count
        elapsed = Date().timeIntervalSince(start)
    } while elapsed < seconds

    let perSecond = Double(resolutions) / elapsed
    print("template: 200 conditions, 3,000 parameters; compiled in \(String(format: "%.1f", compileSeconds * 1000)) ms")
    print("resolutions: \(resolutions) in \(String(format: "%.2f", elapsed)) s (one thread)")
    print(
        "throughput: \(String(format: "%.0f", perSecond)) resolutions/s, \(String(format: "%.1f", 1_000_000 / perSecond)) µs each"
    )
    print("checksum: \(checksum)")
}

try runBenchmark()
