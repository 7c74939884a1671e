import NIOCore
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// Answers remembered by signature stay within one memory budget across every template of the process: a
/// server holding many projects whose callers split into thousands of signatures held gigabytes before.
@Suite struct AnswerBudgetTests {
    /// A template whose callers of versions 1.0.0 to 1.0.19 get 20 different answers, each over 2 KB.
    static func template(_ name: String) throws -> CompiledTemplate {
        var conditions: [JSONValue] = []
        var conditional = JSONObject()
        for index in 0..<20 {
            conditions.append(["name": "v\(index)", "expression": "app.version.==(['1.0.\(index)'])"])
            conditional["v\(index)"] = ["value": "\(name)-\(index)"]
        }
        let document: JSONValue = [
            "conditions": .array(conditions),
            "parameters": [
                "choice": ["defaultValue": ["value": "none"], "conditionalValues": .object(conditional)],
                "filler": ["defaultValue": ["value": .string(String(repeating: "x", count: 2_000))]],
            ],
        ]
        return try CompiledTemplate(try RemoteConfigTemplate(json: document.jsonBytes()))
    }

    static func choice(_ answer: FetchAnswers.Answer) throws -> String? {
        let object = try JSONValue(parsing: answer.body.readableBytesView)
        return object["entries"]?["choice"]?.stringValue
    }

    static func caller(_ version: Int) -> FetchContext {
        FetchContext(appInstanceId: "i-\(version)", appVersion: "1.0.\(version)")
    }

    @Test func everyTemplatesAnswersStayWithinTheProcessBudget() throws {
        let budget = ByteBudget(limit: 16_384)
        let shop = FetchAnswers(try Self.template("shop"), budget: budget)
        let news = FetchAnswers(try Self.template("news"), budget: budget)
        for round in 0..<3 {
            for version in 0..<20 {
                for (answers, name) in [(shop, "shop"), (news, "news")] {
                    let answer = answers.answer(for: Self.caller(version))
                    // Whatever was forgotten, every answer is the right one.
                    #expect(try Self.choice(answer) == "\(name)-\(version)", "round \(round)")
                    #expect(budget.bytes <= budget.limit)
                    #expect(shop.remembered.bytes + news.remembered.bytes == budget.bytes)
                }
            }
        }
        // 40 answers of over 2 KB do not fit in 16 KB: each template holds a few, never all.
        #expect(shop.remembered.count + news.remembered.count < 8)
        #expect(shop.remembered.count > 0 || news.remembered.count > 0)
    }

    @Test func aSignatureSeenAgainGetsTheSameAnswerWithinTheBudget() throws {
        let budget = ByteBudget(limit: 1 << 20)
        let answers = FetchAnswers(try Self.template("shop"), budget: budget)
        let first = answers.answer(for: Self.caller(3))
        let again = answers.answer(for: FetchContext(appInstanceId: "another", appVersion: "1.0.3"))
        #expect(first === again)
        #expect(answers.remembered.count == 1)
        #expect(budget.bytes == answers.remembered.bytes)
        #expect(budget.bytes >= first.body.readableBytes)
    }

    @Test func aTemplateAtItsLimitForgetsOneAnswerNotAll() throws {
        // Room for five answers: the sixth signature takes one answer's place, and the other four stay
        // remembered (forgetting all of them made every caller after it rebuild its answer).
        let sizing = FetchAnswers(try Self.template("shop"), budget: ByteBudget(limit: 1 << 20))
        let size = sizing.answer(for: Self.caller(0)).bytes
        let budget = ByteBudget(limit: 5 * size + size / 2)
        let answers = FetchAnswers(try Self.template("shop"), budget: budget)
        for version in 0..<5 { _ = answers.answer(for: Self.caller(version)) }
        #expect(answers.remembered.count == 5)
        let sixth = answers.answer(for: Self.caller(5))
        #expect(try Self.choice(sixth) == "shop-5")
        #expect(answers.remembered.count == 5)
        #expect(answers.remembered.bytes == budget.bytes)
        #expect(budget.bytes <= budget.limit)
        #expect(answers.answer(for: FetchContext(appInstanceId: "again", appVersion: "1.0.5")) === sixth)
    }

    @Test func aTemplateGivesItsBytesBackWhenItGoes() throws {
        let budget = ByteBudget(limit: 1 << 20)
        do {
            let answers = FetchAnswers(try Self.template("shop"), budget: budget)
            for version in 0..<5 { _ = answers.answer(for: Self.caller(version)) }
            #expect(answers.remembered.count == 5)
            #expect(budget.bytes > 0)
        }
        // A publish replaces a project's answers: the old ones' share is free again.
        #expect(budget.bytes == 0)
    }

    @Test func theBudgetNeverLendsMoreThanItHas() {
        let budget = ByteBudget(limit: 100)
        #expect(budget.reserve(60))
        #expect(!budget.reserve(41))
        #expect(budget.reserve(40))
        #expect(budget.bytes == 100)
        budget.release(60)
        #expect(budget.bytes == 40)
        #expect(budget.reserve(60))
    }
}
