import Foundation
import Testing

@testable import RemoteConfigCore

/// Evaluates one expression; `nil` stands for unknown.
func truth(_ expression: String, _ context: FetchContext) throws -> ConditionTruth {
    try CompiledCondition(name: "c", expression: expression).evaluate(context)
}

let referenceNow = Date(timeIntervalSince1970: 1_796_000_000)  // 2026-11-30T00:53:20Z

@Suite("Condition evaluation")
struct ConditionEvaluationTests {
    let ios = FetchContext(
        appInstanceId: "install-1",
        appId: "com.example.shop",
        platform: .ios,
        appVersion: "1.9.3",
        appBuild: "120",
        countryCode: "JP",
        languageCode: "ja_JP",
        customSignals: ["plan": "pro", "cart": 3, "cart_text": "4.5", "sdk": "1.1.9"],
        userProperties: ["level": "12", "tier": "gold"],
        firstOpenTime: Date(timeIntervalSince1970: 1_767_225_600),  // 2026-01-01T00:00:00Z
        now: referenceNow
    )
    let empty = FetchContext(now: referenceNow)

    @Test("device.os, app.id")
    func platformAndId() throws {
        #expect(try truth("device.os == 'ios'", ios) == .true)
        #expect(try truth("device.os == 'IOS'", ios) == .true)
        #expect(try truth("device.os != 'android'", ios) == .true)
        #expect(try truth("device.os == 'web'", ios) == .false)
        #expect(try truth("device.os == 'ios'", empty) == .unknown)
        #expect(try truth("app.id == 'com.example.shop'", ios) == .true)
        #expect(try truth("app.id != 'com.example.shop'", ios) == .false)
        #expect(try truth("app.id == 'com.example.shop'", empty) == .unknown)
    }

    @Test("versions: numeric parts, missing parts are zero, invalid makes the atom false")
    func versions() throws {
        #expect(try truth("app.version.<(['2.0.0'])", ios) == .true)
        #expect(try truth("app.version.>=(['1.9.3'])", ios) == .true)
        #expect(try truth("app.version.>(['1.9.3'])", ios) == .false)
        #expect(try truth("app.version.==(['1.9.3.0.0'])", ios) == .true)
        #expect(try truth("app.version.>(['1.10'])", ios) == .false)  // 9 < 10 numerically
        #expect(try truth("app.build.<=(['120'])", ios) == .true)
        #expect(try truth("app.build.>(['99'])", ios) == .true)
        var context = ios
        context.appVersion = "2.1"
        #expect(try truth("app.version.==(['2.1.0'])", context) == .true)
        #expect(try truth("app.version.!=(['2.1.0'])", context) == .false)
        // Parts are read as JavaScript's Number() reads them (Firebase's evaluator), so "", "1..2", "-1" and
        // " 2.1" are versions (0, 1.0.2, -1, 2.1); these are not.
        for bad in ["2.x", "1.2.3.4.5.6", "v2", "2.1.0-beta", "1_0", "0x"] {
            context.appVersion = bad
            #expect(try truth("app.version.<(['9.0'])", context) == .false, "\(bad)")
            #expect(try truth("app.version.!=(['9.0'])", context) == .false, "\(bad)")
        }
        context.appVersion = "1.2.3.4.5"
        #expect(try truth("app.version.==(['1.2.3.4.5'])", context) == .true)
        #expect(try truth("app.version.>(['not.a.version'])", ios) == .false)
        #expect(try truth("app.version.<(['2.0.0'])", empty) == .unknown)
        #expect(try truth("version(app.customSignal['sdk']) < '1.2.0'", ios) == .true)
        #expect(try truth("version(app.customSignal['sdk']) >= '1.2.0'", ios) == .false)
        #expect(try truth("version(app.customSignal['missing']) >= '1.2.0'", ios) == .unknown)
        #expect(try truth("version(app.customSignal['cart']) == '3.0'", ios) == .true)
    }

    @Test("string methods on version, build, signals and user properties")
    func stringMethods() throws {
        #expect(try truth("app.version.contains(['9.3'])", ios) == .true)
        #expect(try truth("app.version.contains(['x', '1.9'])", ios) == .true)
        #expect(try truth("app.version.notContains(['beta', 'rc'])", ios) == .true)
        #expect(try truth("app.version.notContains(['beta', '1.'])", ios) == .false)
        #expect(try truth("app.build.exactlyMatches(['12', '120'])", ios) == .true)
        #expect(try truth("app.build.exactlyMatches(['12'])", ios) == .false)
        #expect(try truth("app.version.matches(['^1\\.9'])", ios) == .true)
        #expect(try truth("app.version.matches(['^2', 'x$'])", ios) == .false)
        #expect(try truth("app.version.matches(['9'])", ios) == .true)  // contains a match, like RegExp.test
        #expect(try truth("app.customSignal['plan'].contains(['pro'])", ios) == .true)
        #expect(try truth("app.customSignal['plan'].exactlyMatches(['PRO'])", ios) == .false)
        #expect(try truth("app.customSignal['plan'] == 'pro'", ios) == .true)
        #expect(try truth("app.customSignal['plan'] != 'pro'", ios) == .false)
        #expect(try truth("app.customSignal['cart'].exactlyMatches(['3'])", ios) == .true)
        #expect(try truth("app.userProperty['tier'].exactlyMatches(['gold'])", ios) == .true)
        #expect(try truth("app.customSignal['nope'].contains(['pro'])", ios) == .unknown)
        #expect(try truth("app.customSignal['nope'].notContains(['pro'])", ios) == .unknown)
        #expect(try truth("app.userProperty['nope'].matches(['.*'])", ios) == .unknown)
    }

    @Test("numeric comparisons read numbers and numeric strings")
    func numeric() throws {
        #expect(try truth("app.customSignal['cart'] >= 3", ios) == .true)
        #expect(try truth("app.customSignal['cart'] > 3", ios) == .false)
        #expect(try truth("app.customSignal['cart'] == 3.0", ios) == .true)
        #expect(try truth("app.customSignal['cart'] != 3", ios) == .false)
        #expect(try truth("app.customSignal['cart_text'] < 5", ios) == .true)
        #expect(try truth("app.customSignal['cart_text'] <= 4.5", ios) == .true)
        #expect(try truth("app.customSignal['cart'] > -1", ios) == .true)
        #expect(try truth("app.customSignal['plan'] > 1", ios) == .false)  // not a number
        #expect(try truth("app.customSignal['cart'] >= 3", empty) == .unknown)
        #expect(try truth("app.userProperty['level'] > 10", ios) == .true)
    }

    @Test("country and language: case-insensitive, _ equals -, a language matches its regional tags")
    func localeMatching() throws {
        #expect(try truth("device.country in ['jp', 'us']", ios) == .true)
        #expect(try truth("device.country in ['US', 'GB']", ios) == .false)
        #expect(try truth("device.country in ['us']", empty) == .unknown)
        #expect(try truth("device.language in ['ja-jp']", ios) == .true)
        #expect(try truth("device.language in ['JA']", ios) == .true)
        #expect(try truth("device.language in ['en']", ios) == .false)
        var context = ios
        context.languageCode = "en-GB"
        #expect(try truth("device.language in ['en']", context) == .true)
        #expect(try truth("device.language in ['en_GB']", context) == .true)
        #expect(try truth("device.language in ['en-US']", context) == .false)
        context.languageCode = "en"
        #expect(try truth("device.language in ['en-GB']", context) == .false)
        context.languageCode = "zh_Hant_TW"
        #expect(try truth("device.language in ['zh-Hant']", context) == .true)
        #expect(try truth("device.language in ['en']", empty) == .unknown)
    }

    @Test("instance ids")
    func instanceIds() throws {
        #expect(try truth("app.firebaseInstallationId in ['a', 'install-1']", ios) == .true)
        #expect(try truth("app.instanceId in ['a']", ios) == .false)
        #expect(try truth("app.instanceId in ['a']", empty) == .unknown)
    }

    @Test("dateTime uses the supplied clock and the zone")
    func dateTime() throws {
        // referenceNow is 2026-11-30T00:53:20Z = 2026-11-30T09:53:20 in Tokyo.
        #expect(try truth("dateTime >= dateTime('2026-11-30T00:53:20')", ios) == .true)
        #expect(try truth("dateTime >= dateTime('2026-11-30T00:53:21')", ios) == .false)
        #expect(try truth("dateTime >= dateTime('2026-11-30T09:53:20', 'Asia/Tokyo')", ios) == .true)
        #expect(try truth("dateTime >= dateTime('2026-11-30T09:53:21', 'Asia/Tokyo')", ios) == .false)
        #expect(try truth("dateTime < dateTime('2026-11-30T09:53:21+09:00')", ios) == .true)
        #expect(try truth("dateTime < dateTime('2026-11-30T00:53:20Z')", empty) == .false)
        // New York is on EST (UTC-5) in November.
        #expect(try truth("dateTime >= dateTime('2026-11-29T19:53:20', 'America/New_York')", ios) == .true)
        #expect(try truth("dateTime >= dateTime('2026-11-29T19:53:21', 'America/New_York')", ios) == .false)
    }

    @Test("app.firstOpenTimestamp compares the request's firstOpenTime")
    func firstOpen() throws {
        #expect(try truth("app.firstOpenTimestamp >= ('2026-01-01T00:00:00')", ios) == .true)
        #expect(try truth("app.firstOpenTimestamp > ('2026-01-01T00:00:00')", ios) == .false)
        #expect(try truth("app.firstOpenTimestamp > ('2026-01-01T08:59:59', 'Asia/Tokyo')", ios) == .true)
        #expect(try truth("app.firstOpenTimestamp <= dateTime('2026-01-01T00:00:00')", ios) == .true)
        #expect(try truth("app.firstOpenTimestamp > ('2026-01-01T00:00:00')", empty) == .unknown)
    }

    @Test("three-valued logic, as in SQL")
    func threeValued() throws {
        let unknown = "device.os == 'ios'"
        #expect(try truth(unknown, empty) == .unknown)
        #expect(try truth("!(\(unknown))", empty) == .unknown)
        #expect(try truth("\(unknown) && false", empty) == .false)
        #expect(try truth("false && \(unknown)", empty) == .false)
        #expect(try truth("\(unknown) && true", empty) == .unknown)
        #expect(try truth("\(unknown) || true", empty) == .true)
        #expect(try truth("true || \(unknown)", empty) == .true)
        #expect(try truth("\(unknown) || false", empty) == .unknown)
        #expect(try truth("!(\(unknown) && false)", empty) == .true)
        #expect(try truth("!(\(unknown) || false)", empty) == .unknown)
        #expect(try truth("!true", empty) == .false)
        #expect(try truth("!!false", empty) == .false)
        // The documented consequence: a negation does not select callers who sent nothing.
        #expect(try truth("!(device.os == 'ios')", empty).matches == false)
        #expect(try truth("!(device.os == 'ios')", FetchContext(platform: .android)).matches)
        // Invalid present input is known false, so its negation is true.
        #expect(try truth("!app.version.<(['2.0'])", FetchContext(appVersion: "x")) == .true)
    }

    @Test("percent without appInstanceId is unknown, so never matches, even negated")
    func percentWithoutId() throws {
        #expect(try truth("percent <= 100", empty) == .unknown)
        #expect(try truth("!(percent <= 0)", empty) == .unknown)
        #expect(try truth("percent <= 100", ios) == .true)
        #expect(try truth("percent > 100", ios) == .false)
        #expect(try truth("percent between 0 and 100", ios) == .true)
    }
}
