import Foundation
import Testing

@testable import RemoteConfigCore

/// A string of escapes costs time in proportion to its length: a 1 MiB fetch body of `\\` escapes once took
/// seconds on an event loop, growing with the square of the escapes.
@Suite struct JSONEscapeScalingTests {
    /// The fastest of three runs of `work`, so one run delayed by the shared machine does not decide.
    static func fastest(_ work: () throws -> Void) rethrows -> Duration {
        var best = Duration.seconds(3600)
        for _ in 0..<3 {
            let start = ContinuousClock.now
            try work()
            best = min(best, ContinuousClock.now - start)
        }
        return best
    }

    /// How much longer 4n escapes take than n: about 4 when linear, about 16 when quadratic.
    static func ratio(escapes: Int, _ parse: ([UInt8]) throws -> Void) throws -> Double {
        func body(_ count: Int) -> [UInt8] {
            Array(#"{"appInstanceId":"i","customSignals":{"x":""#.utf8)
                + Array(repeating: Array(#"\\"#.utf8), count: count).flatMap { $0 } + Array(#""}}"#.utf8)
        }
        let small = body(escapes)
        let large = body(escapes * 4)
        try parse(small)  // warm up
        let smallTime = try fastest { try parse(small) }
        let largeTime = try fastest { try parse(large) }
        return largeTime / max(smallTime, .microseconds(1))
    }

    @Test func parsingEscapesIsLinearInTheirNumber() throws {
        let ratio = try Self.ratio(escapes: 50_000) { bytes in
            let value = try JSONValue(parsing: bytes)
            #expect(value["customSignals"]?["x"]?.stringValue?.allSatisfy { $0 == "\\" } == true)
        }
        print("JSON escapes: 4 times the escapes took \(ratio) times as long")
        // Linear work grows 4 times; the generous bound leaves room for a busy machine, not for a square.
        #expect(ratio < 8, "4 times the escapes took \(ratio) times as long")
    }

    @Test func decodingATemplateWithEscapedValuesIsLinear() throws {
        let ratio = try Self.ratio(escapes: 50_000) { bytes in
            // The same escapes in a parameter's value, through the decoding an admin PUT uses.
            let text = String(decoding: bytes, as: UTF8.self)
            let value = text.dropFirst(#"{"appInstanceId":"i","customSignals":{"x":"#.utf8.count).dropLast(2)
            let template = #"{"parameters":{"p":{"defaultValue":{"value":\#(value)}}}}"#
            _ = try RemoteConfigTemplate(json: Array(template.utf8))
        }
        print("template escapes: 4 times the escapes took \(ratio) times as long")
        #expect(ratio < 8, "4 times the escapes took \(ratio) times as long")
    }
}
