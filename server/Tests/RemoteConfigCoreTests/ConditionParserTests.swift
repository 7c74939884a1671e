import Foundation
import RemoteConfigTestHistories
import Testing

@testable import RemoteConfigCore

@Suite("Condition parser")
struct ConditionParserTests {
    static let accepted: [String] = [
        "true",
        "false",
        "device.os == 'ios'",
        "device.os != 'android'",
        "device.os == \"web\"",
        "app.version.>=(['2.1.0'])",
        "app.version.==(['2.1.0'])",
        "app.version.!=(['2.1'])",
        "app.version.>(['2'])",
        "app.version.<(['2.0.0'])",
        "app.build.<=(['120'])",
        "app.version.contains(['beta'])",
        "app.version.notContains(['beta', 'rc'])",
        "app.build.exactlyMatches(['120', '121'])",
        "app.version.matches(['^2\\.[0-9]+'])",
        "device.country in ['jp', 'us']",
        "device.language in ['en', 'pt-BR', \"ja_JP\"]",
        "app.id == 'com.example.shop'",
        "app.id != 'com.example.shop'",
        "app.customSignal['plan'].contains(['pro'])",
        "app.customSignal['plan'].notContains(['free'])",
        "app.customSignal['plan'].exactlyMatches(['pro'])",
        "app.customSignal['plan'].matches(['^p.*'])",
        "app.customSignal['cart'] >= 3",
        "app.customSignal['cart'] < -2.5",
        "app.customSignal['cart'] == 3",
        "app.customSignal['cart'] != 0",
        "app.customSignal[\"plan\"] == 'pro'",
        "app.userProperty['level'] > 10",
        "app.userProperty['tier'].exactlyMatches(['gold'])",
        "version(app.customSignal['sdk']) < '1.2.0'",
        "version(app.customSignal['sdk']) >= '1.2.0'",
        "version(app.userProperty['v']) == '1'",
        "version(app.customSignal['sdk']) != '1.2.0'",
        "version(app.customSignal['sdk']) <= '1.2.0'",
        "version(app.customSignal['sdk']) > '1.2.0'",
        "dateTime >= dateTime('2026-12-01T00:00:00', 'Asia/Tokyo')",
        "dateTime < dateTime('2026-12-01T00:00:00')",
        "dateTime < dateTime('2026-12-01T00:00:00Z')",
        "dateTime < dateTime('2026-12-01T00:00:00.250+09:00')",
        "app.firstOpenTimestamp > ('2026-01-01T00:00:00')",
        "app.firstOpenTimestamp <= ('2026-01-01T00:00:00', 'Europe/Paris')",
        "percent <= 20",
        "percent > 20",
        "percent <= 12.5",
        "percent between 10 and 20",
        "percent('checkout') between 10 and 20",
        "percent('seed') <= 0",
        "app.firebaseInstallationId in ['fid1', 'fid2']",
        "app.instanceId in ['abc']",
        "device.os == 'ios' && app.version.<(['2.0.0'])",
        "device.os == 'ios' || device.os == 'android'",
        "!(device.os == 'ios')",
        "!!true",
        "(true || false) && !false",
        "  device.os=='ios'&&app.version.<(['2.0.0'])  ",
    ]

    @Test("every form in API.md parses", arguments: accepted)
    func parses(expression: String) throws {
        #expect(throws: Never.self) { try ConditionParser.parse(expression) }
    }

    @Test("the parse tree has the intended meaning")
    func trees() throws {
        #expect(try ConditionParser.parse("true") == .literal(true))
        #expect(try ConditionParser.parse("device.os == 'ios'") == .atom(.platform(.equal, .ios)))
        #expect(
            try ConditionParser.parse("app.version.>=(['2.1.0'])")
                == .atom(.versionCompare(.appVersion, .greaterOrEqual, "2.1.0"))
        )
        #expect(
            try ConditionParser.parse("app.customSignal['cart'] >= 3")
                == .atom(.numericCompare(.customSignal("cart"), .greaterOrEqual, 3))
        )
        #expect(
            try ConditionParser.parse("percent('checkout') between 10 and 20")
                == .atom(.percent(seed: "checkout", .between(10, 20)))
        )
        #expect(
            try ConditionParser.parse("version(app.customSignal['sdk']) < '1.2.0'")
                == .atom(.versionCompare(.customSignal("sdk"), .less, "1.2.0"))
        )
    }

    @Test("precedence: ! binds tightest, then &&, then ||")
    func precedence() throws {
        let tree = try ConditionParser.parse("true || !false && false")
        #expect(tree == .or([.literal(true), .and([.not(.literal(false)), .literal(false)])]))
        let grouped = try ConditionParser.parse("(true || false) && false")
        #expect(grouped == .and([.or([.literal(true), .literal(false)]), .literal(false)]))
    }

    @Test("string escapes: quotes and backslashes only; regex backslashes stay")
    func escapes() throws {
        #expect(
            try ConditionParser.parse(#"app.customSignal['k'].exactlyMatches(['it\'s', "say \"hi\"", 'a\\b'])"#)
                == .atom(.stringMethod(.customSignal("k"), .exactlyMatches, ["it's", "say \"hi\"", #"a\b"#]))
        )
        #expect(
            try ConditionParser.parse(#"app.version.matches(['^\d+\.0$'])"#)
                == .atom(.stringMethod(.appVersion, .matches, [#"^\d+\.0$"#]))
        )
    }

    static let rejected: [(String, Int, String)] = [
        ("device.country in ['jp', 'us'", 29, "expected `,` or `]`"),
        ("", 0, "expected"),
        ("device.os = 'ios'", 10, "`==`"),
        ("device.os == 'mac'", 13, "unknown platform"),
        ("device.foo == 'ios'", 7, "unknown field `device.foo`"),
        ("app.version.>=('2.1.0')", 15, "expected `[`"),
        ("app.version.>=(['2.1.0', '3.0'])", 15, "exactly one version"),
        ("app.version.startsWith(['2'])", 12, "unknown method"),
        ("true &&", 7, "expected"),
        ("true & false", 5, "`&&`"),
        ("(true", 5, "expected `)`"),
        ("true)", 4, "expected `&&`, `||`"),
        ("percent <= 101", 11, "between 0 and 100"),
        ("percent == 5", 8, "`between`"),
        ("percent between 20 and 10", 23, "upper bound"),
        ("dateTime >= dateTime('2026-12-01T00:00:00', 'Mars/Olympus')", 44, "unknown time zone"),
        ("dateTime >= dateTime('2026-02-30T00:00:00')", 21, "not a valid date"),
        ("dateTime >= dateTime('tomorrow')", 21, "date-time"),
        ("app.customSignal['k'].matches(['(unclosed'])", 30, "invalid regular expression"),
        ("app.customSignal['k'] >= 'x'", 25, "a number"),
        ("device.os == 'ios' 'x'", 19, "expected `&&`"),
        ("'ios' == device.os", 0, "expected"),
        ("device.os == 'ios", 13, "unterminated string"),
        ("app.version.>=(['1']) # comment", 22, "unexpected character `#`"),
        ("😊 == 'x'", 0, "unexpected character"),
        ("device.country in ['日本', 'us'", 29, "expected `,` or `]`"),
    ]

    @Test("errors name the position (0-based, in characters) and what was expected", arguments: rejected)
    func rejects(expression: String, position: Int, fragment: String) {
        do {
            let tree = try ConditionParser.parse(expression)
            Issue.record("accepted \(expression) as \(tree)")
        } catch {
            #expect(error.position == position, "\(expression): \(error)")
            #expect(error.message.contains(fragment), "\(expression): \(error)")
            #expect(error.description.hasSuffix(" at \(position)"))
        }
    }

    @Test("the 27 example: a missing ] is reported at its position")
    func missingBracket() {
        #expect(throws: ConditionParseError(kind: .syntax, position: 27, message: "expected `,` or `]` but found `)`"))
        {
            try ConditionParser.parse("app.instanceId in ['a', 'b')")
        }
    }

    @Test("limits: 50 atoms and 50 ids are fine, 51 are LIMIT_EXCEEDED")
    func limits() throws {
        let fifty = Array(repeating: "true", count: 50).joined(separator: " && ")
        #expect(throws: Never.self) { try ConditionParser.parse(fifty) }
        do {
            _ = try ConditionParser.parse(fifty + " && false")
            Issue.record("51 atoms accepted")
        } catch {
            #expect(error.kind == .tooManyAtoms)
            #expect(error.validationReason == "LIMIT_EXCEEDED")
        }
        let ids = (0..<50).map { "'id\($0)'" }
        #expect(throws: Never.self) {
            try ConditionParser.parse("app.firebaseInstallationId in [\(ids.joined(separator: ","))]")
        }
        do {
            _ = try ConditionParser.parse("app.firebaseInstallationId in [\((ids + ["'x'"]).joined(separator: ","))]")
            Issue.record("51 ids accepted")
        } catch {
            #expect(error.kind == .tooManyInstanceIds)
            #expect(error.isLimitExceeded)
            #expect(error.position == 30)
        }
        do {
            _ = try ConditionParser.parse("device.os == 'x'")
        } catch {
            #expect(error.validationReason == "INVALID_EXPRESSION")
        }
    }

    @Test("deep nesting is an error, not a stack overflow")
    func deepNesting() {
        for opener in ["(", "!", "!(", "( !"] {
            let text = String(repeating: opener, count: 10_000) + "true"
            do {
                _ = try ConditionParser.parse(text)
                Issue.record("accepted deep \(opener)")
            } catch {
                #expect(error.kind == .nestingTooDeep)
                #expect(error.isLimitExceeded)
            }
        }
        let ok = String(repeating: "(", count: 64) + "true" + String(repeating: ")", count: 64)
        #expect(throws: Never.self) { try ConditionParser.parse(ok) }
    }

    @Test("10,000 random and mutated expressions either parse or fail with a located error")
    func fuzz() {
        var random = SeededGenerator(seed: 0x5EED_C0DE)
        let pieces = [
            "device.os", "==", "!=", "'ios'", "app.version", ".", ">=", "(", ")", "[", "]", "['2.1.0']", ",",
            "&&", "||", "!", "true", "false", "percent", "between", "and", "10", "20.5", "-1", "in", "'x'", "\"y\"",
            "app.customSignal", "['k']", "contains", "matches", "dateTime", "version", "app", "device", "<", "<=",
            ">", "'", "\"", "\\", "😊", " ", "app.firstOpenTimestamp", "('2026-01-01T00:00:00')", "#", "=",
        ]
        let alphabet = Array("()[]'\",.!=<>&| abcdefgh0123456789_-\\😊é\t\n")
        var parsed = 0
        var failed = 0
        for round in 0..<10_000 {
            var text: String
            if round % 2 == 0 {
                let count = Int.random(in: 0...12, using: &random)
                text = (0..<count).map { _ in pieces.randomElement(using: &random)! }.joined(
                    separator: Bool.random(using: &random) ? " " : ""
                )
            } else {
                var characters = Array(Self.accepted.randomElement(using: &random)!)
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let position = Int.random(in: 0...characters.count, using: &random)
                    switch Int.random(in: 0..<3, using: &random) {
                    case 0: characters.insert(alphabet.randomElement(using: &random)!, at: position)
                    case 1: if position < characters.count { characters.remove(at: position) }
                    default:
                        if position < characters.count {
                            characters[position] = alphabet.randomElement(using: &random)!
                        }
                    }
                }
                text = String(characters)
            }
            do {
                _ = try ConditionParser.parse(text)
                parsed += 1
            } catch {
                failed += 1
                #expect(error.position >= 0 && error.position <= text.count, "\(text): \(error)")
                #expect(!error.message.isEmpty)
            }
        }
        #expect(parsed + failed == 10_000)
        #expect(parsed > 100)
        #expect(failed > 1_000)
    }
}
