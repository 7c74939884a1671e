import NIOCore
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// Answers are copies of a template's literals escaped once, and answers with the same bytes share one
/// encoding (and so one gzip form), whatever signatures they come from.
@Suite struct AnswerEncodingTests {
    static func compiled(_ document: JSONValue) throws -> CompiledTemplate {
        try CompiledTemplate(try RemoteConfigTemplate(json: document.jsonBytes()))
    }

    /// `banner` is "sale" for 1.0.1 and for 1.0.2 (two conditions), "none" otherwise; `notes` is long enough
    /// for a gzip form.
    static let template: JSONValue = [
        "conditions": [
            ["name": "v1", "expression": "app.version.==(['1.0.1'])"],
            ["name": "v2", "expression": "app.version.==(['1.0.2'])"],
        ],
        "parameters": [
            "banner": [
                "defaultValue": ["value": "none"],
                "conditionalValues": ["v1": ["value": "sale"], "v2": ["value": "sale"]],
            ],
            "notes": ["defaultValue": ["value": .string(String(repeating: "release notes ", count: 100))]],
        ],
    ]

    @Test func signaturesWithTheSameBytesShareOneGzipForm() throws {
        let answers = FetchAnswers(try Self.compiled(Self.template))
        let first = answers.answer(for: FetchContext(appInstanceId: "a", appVersion: "1.0.1"))
        let second = answers.answer(for: FetchContext(appInstanceId: "b", appVersion: "1.0.2"))
        let other = answers.answer(for: FetchContext(appInstanceId: "c", appVersion: "1.0.3"))
        // Two signatures, one answer's bytes: compressed once.
        #expect(answers.remembered.count == 3)
        #expect(first.encoding === second.encoding)
        #expect(first.gzipBody != nil)
        #expect(first.etag == second.etag)
        #expect(other.encoding !== first.encoding)
        #expect(other.etag != first.etag)
        // Insights still count what each caller matched.
        #expect(first.tally.matchedConditions == ["v1"])
        #expect(second.tally.matchedConditions == ["v2"])
        #expect(other.tally.matchedConditions == [])
    }

    @Test func sharedBytesCountOnceInTheBudgetAndGoWithTheirLastHolder() throws {
        let budget = ByteBudget(limit: 1 << 20)
        let answers = FetchAnswers(try Self.compiled(Self.template), budget: budget)
        let first = answers.answer(for: FetchContext(appInstanceId: "a", appVersion: "1.0.1"))
        let second = answers.answer(for: FetchContext(appInstanceId: "b", appVersion: "1.0.2"))
        #expect(first.encoding === second.encoding)
        #expect(answers.encodingCount == 1)
        #expect(budget.bytes == first.encoding.bytes + first.ownBytes + second.ownBytes)
        #expect(answers.remembered.bytes == budget.bytes)
        _ = answers.answer(for: FetchContext(appInstanceId: "c", appVersion: "1.0.3"))
        #expect(answers.encodingCount == 2)
    }

    @Test func anEncodingIsSharedWhileARememberedAnswerHoldsIt() {
        let shared = SharedEncodings()
        var made = 0
        func encoding(_ etag: String) -> FetchAnswers.Encoding {
            shared.encoding(etag) {
                made += 1
                return FetchAnswers.Encoding(state: .update, etag: etag, body: ByteBuffer(string: "{}"))
            }
        }
        let first = encoding("\"a\"")
        // Not yet held by a remembered answer: made again.
        #expect(encoding("\"a\"") !== first)
        #expect(shared.hold(first))
        #expect(encoding("\"a\"") === first)
        #expect(!shared.hold(first))
        #expect(made == 2)
        // Bytes made twice in a race are their holder's own.
        let twin = FetchAnswers.Encoding(state: .update, etag: "\"a\"", body: ByteBuffer(string: "{}"))
        #expect(shared.hold(twin))
        #expect(shared.release(twin))
        #expect(!shared.release(first))
        #expect(shared.count == 1)
        #expect(shared.release(first))
        #expect(shared.count == 0)
        _ = encoding("\"a\"")
        #expect(made == 3)
    }

    /// The heads the fetch front writes as they are carry the fields the router's answers carry, in order.
    @Test func theRenderedHeadsAreTheAnswersHeaders() throws {
        let answer = FetchAnswers(try Self.compiled(Self.template)).answer(for: FetchContext(appInstanceId: "a"))
        let gzipBody = try #require(answer.gzipBody)
        let heads: [(ByteBuffer?, String, Bool, Bool, Int?)] = [
            (answer.okHead, "HTTP/1.1 200 OK", false, false, answer.body.readableBytes),
            (answer.gzipOkHead, "HTTP/1.1 200 OK", false, true, gzipBody.readableBytes),
            (answer.notModifiedHead, "HTTP/1.1 304 Not Modified", true, false, nil),
        ]
        for (head, status, notModified, gzip, length) in heads {
            let lines = String(buffer: try #require(head)).components(separatedBy: "\r\n").filter { !$0.isEmpty }
            var expected = [status]
            for field in answer.headers(notModified: notModified, gzip: gzip) {
                expected.append("\(field.name.rawName): \(field.value)")
            }
            if let length { expected.append("Content-Length: \(length)") }
            #expect(lines == expected)
        }
    }

    /// Keys and values that need escaping come out as a JSON encoder writes them, in serving order, for
    /// every caller of a template of thousands of parameters.
    @Test func answersAreTheTemplatesValuesWhateverTheirText() throws {
        let texts = ["plain", "quote \" and \\ backslash", "tab\tline\nfeed", "é 🚀 ü", "\u{01} control", ""]
        var parameters = JSONObject()
        var conditions: [JSONValue] = []
        for index in 0..<40 {
            conditions.append(["name": "c\(index)", "expression": "app.version.>=(['1.\(index).0'])"])
        }
        for index in 0..<3_000 {
            parameters["p\(index)"] = [
                "defaultValue": ["value": .string("\(texts[(index + 1) % texts.count])\(index)")],
                "conditionalValues": ["c\(index % 40)": ["value": .string(texts[index % texts.count])]],
            ]
        }
        let compiled = try Self.compiled(["conditions": .array(conditions), "parameters": .object(parameters)])
        let answers = FetchAnswers(compiled)
        for version in ["1.0.0", "1.7.3", "1.39.0", "0.1"] {
            let context = FetchContext(appInstanceId: version, appVersion: version)
            let body = try JSONValue(parsing: answers.answer(for: context).body.readableBytesView)
            let entries = try #require(body["entries"]?.objectValue)
            let expected = compiled.resolve(context).entries
            #expect(entries.members.map(\.key) == expected.map(\.key), "\(version)")
            #expect(entries.members.map { $0.value.stringValue } == expected.map(\.value), "\(version)")
            #expect(body["state"]?.stringValue == "UPDATE")
        }
    }
}
