import Foundation
import Testing

@testable import RemoteConfigCore

/// Times are written in the proleptic Gregorian calendar to the millisecond, the exact inverse of reading
/// them, over every year the server takes in.
@Suite("RFC3339 format")
struct RFC3339FormatTests {
    @Test("times before the Gregorian reform are not shifted to Julian dates")
    func beforeTheReform() throws {
        for text in [
            "0001-01-01T00:00:00.000Z", "0100-02-28T12:00:00.000Z", "1000-03-01T00:00:00.000Z",
            "1500-03-01T12:34:56.789Z", "1582-10-04T23:59:59.999Z", "1582-10-10T00:00:00.000Z",
            "1582-10-15T00:00:00.000Z", "1600-02-29T00:00:00.000Z",
        ] {
            let date = try #require(RFC3339.parseMilliseconds(text), "\(text)")
            #expect(RFC3339.format(date) == text)
        }
    }

    @Test("the last nanosecond of year 9999 stays in 9999")
    func endOfTheRange() throws {
        let date = try #require(RFC3339.parseMilliseconds("9999-12-31T23:59:59.999999999Z"))
        #expect(RFC3339.format(date) == "9999-12-31T23:59:59.999Z")
        #expect(date < RFC3339.end)
        let leap = try #require(RFC3339.parseMilliseconds("9999-12-31T23:59:60Z"))
        #expect(RFC3339.format(leap) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.format(RFC3339.earliest) == "0001-01-01T00:00:00.000Z")
        #expect(RFC3339.format(RFC3339.end) == "10000-01-01T00:00:00.000Z")
    }

    @Test("offsets and fractions: written in UTC, further digits dropped")
    func offsetsAndFractions() throws {
        let cases = [
            ("2026-11-26T14:00:00.1239+09:00", "2026-11-26T05:00:00.123Z"),
            ("1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"),
            ("1969-12-31T23:59:59.9999Z", "1969-12-31T23:59:59.999Z"),
            ("0001-01-01T01:00:00+01:00", "0001-01-01T00:00:00.000Z"),
        ]
        for (text, expected) in cases {
            #expect(RFC3339.format(try #require(RFC3339.parseMilliseconds(text))) == expected, "\(text)")
        }
    }

    @Test("every millisecond written reads back as itself, across the whole range")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let low = Int64(RFC3339.earliest.timeIntervalSince1970 * 1000)
        let high = Int64(RFC3339.end.timeIntervalSince1970 * 1000) - 1
        for _ in 0..<20_000 {
            let milliseconds = Int64.random(in: low...high, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = RFC3339.format(date)
            let read = try #require(RFC3339.parseMilliseconds(text), "\(text)")
            #expect(RFC3339.format(read) == text)
            #expect(Int64((read.timeIntervalSince1970 * 1000).rounded()) == milliseconds, "\(text)")
        }
    }
}
