import Foundation
import RemoteConfigVersions
import Testing

@testable import RemoteConfigCore

/// Where Firebase's server-side evaluator reads values in a particular way, we read them the same way.
@Suite("Comparisons as Firebase's evaluator makes them")
struct FirebaseComparisonTests {
    private func truth(_ expression: String, signal: SignalValue) throws -> ConditionTruth {
        let condition = try CompiledCondition(name: "c", expression: expression)
        return condition.evaluate(FetchContext(appInstanceId: "i", customSignals: ["s": signal]))
    }

    @Test("string operators compare with surrounding white space trimmed on both sides")
    func trimmed() throws {
        #expect(try truth("app.customSignal['s'].exactlyMatches([' basic'])", signal: " basic ") == .true)
        #expect(try truth("app.customSignal['s'].exactlyMatches(['basic'])", signal: "\tbasic\n") == .true)
        #expect(try truth("app.customSignal['s'].exactlyMatches(['basic'])", signal: "bas ic") == .false)
        #expect(try truth("app.customSignal['s'].contains(['pro '])", signal: "  pro") == .true)
        #expect(try truth("app.customSignal['s'].notContains([' pro'])", signal: "pro  ") == .false)
        #expect(try truth("app.customSignal['s'] == 'gold'", signal: " gold ") == .true)
        #expect(try truth("app.customSignal['s'] != 'gold'", signal: "gold\u{00A0}") == .false)
    }

    @Test("numbers are read as JavaScript's Number() reads them")
    func numbers() throws {
        #expect(JSNumber.parse(" 3 ") == 3)
        #expect(JSNumber.parse("") == 0)
        #expect(JSNumber.parse("0x1F") == 31)
        #expect(JSNumber.parse("0b101") == 5)
        #expect(JSNumber.parse("0o17") == 15)
        #expect(JSNumber.parse("1e3") == 1000)
        #expect(JSNumber.parse(".5") == 0.5)
        #expect(JSNumber.parse("5.") == 5)
        #expect(JSNumber.parse("-Infinity") == -.infinity)
        for notANumber in ["12px", "1_000", "inf", "NaN", "-0x10", "0x", "1e", "--1", "+-1", "1 2"] {
            #expect(JSNumber.parse(notANumber) == nil, "\(notANumber)")
        }
        #expect(try truth("app.customSignal['s'] < 0", signal: "-Infinity") == .true)
        #expect(try truth("app.customSignal['s'] == 3", signal: " 3 ") == .true)
        #expect(try truth("app.customSignal['s'] > 30", signal: "0x20") == .true)
        #expect(try truth("app.customSignal['s'] >= 0", signal: "12px") == .false)
        #expect(try truth("version(app.customSignal['s']) == '3.0'", signal: " 3 ") == .true)
        #expect(try truth("version(app.customSignal['s']) > '1.9'", signal: "1.10") == .true)
    }
}

/// `.matches` uses RE2: linear time, and patterns RE2 cannot express are refused at publish.
@Suite("Regular expressions (RE2)")
struct RegularExpressionTests {
    @Test("catastrophic patterns for a backtracking engine answer at once on long input")
    func linearTime() throws {
        let patterns = [
            "(a+)+$", "(a|aa)*b", "^([a-zA-Z0-9_.-])+@(([a-zA-Z0-9-])+.)+([a-zA-Z0-9]{2,4})+$",
        ]
        let text = String(repeating: "a", count: 500) + "!"
        let started = ContinuousClock.now
        for pattern in patterns {
            let condition = try CompiledCondition(
                name: "c", expression: "app.customSignal['s'].matches(['\(pattern)'])")
            #expect(condition.evaluate(FetchContext(customSignals: ["s": .string(text)])) == .false)
        }
        // A backtracking engine takes minutes here (seconds at 17 characters); RE2 microseconds. The bound
        // is loose on purpose: it only tells the two apart.
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("matching is unanchored unless the pattern anchors it")
    func unanchored() throws {
        let context = FetchContext(customSignals: ["s": "user@example.com"])
        #expect(
            try CompiledCondition(name: "c", expression: "app.customSignal['s'].matches(['example'])")
                .evaluate(context) == .true)
        #expect(
            try CompiledCondition(name: "c", expression: "app.customSignal['s'].matches(['^example'])")
                .evaluate(context) == .false)
        #expect(
            try CompiledCondition(name: "c", expression: "app.customSignal['s'].matches(['^x', '\\.com$'])")
                .evaluate(context) == .true)
    }

    @Test("the empty pattern matches every string; a NUL inside a pattern is part of it")
    func emptyAndNUL() throws {
        let empty = try CompiledRegex("")
        #expect(empty.matches(""))
        #expect(empty.matches("anything"))
        let withNUL = try CompiledRegex("a\u{0}b")
        #expect(withNUL.matches("xa\u{0}by"))
        #expect(!withNUL.matches("a"))
        #expect(!withNUL.matches("ab"))
    }

    @Test("backreferences and lookaround are refused, with the position of the list")
    func refused() {
        for pattern in [#"(a)\1"#, "(?=a)b", "(?!a)b", "(?<=a)b", "a++"] {
            #expect(throws: ConditionParseError.self, "\(pattern)") {
                try CompiledCondition(name: "c", expression: "app.customSignal['s'].matches(['\(pattern)'])")
            }
        }
    }
}
