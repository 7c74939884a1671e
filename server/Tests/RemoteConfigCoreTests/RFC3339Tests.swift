import Foundation
import Testing

@testable import RemoteConfigCore

@Suite("RFC3339")
struct RFC3339Tests {
    private func unix(_ text: String) -> TimeInterval? {
        RFC3339.parse(text)?.timeIntervalSince1970
    }

    @Test("Z, z, t and offsets")
    func validForms() {
        let instant: TimeInterval = 1_795_334_400  // 2026-11-22T08:00:00Z
        for text in [
            "2026-11-22T08:00:00Z", "2026-11-22T08:00:00z", "2026-11-22t08:00:00Z", "2026-11-22t08:00:00z",
            "2026-11-22T08:00:00+00:00", "2026-11-22T08:00:00-00:00", "2026-11-22T10:00:00+02:00",
            "2026-11-22T02:30:00-05:30", "2026-11-23T07:59:00+23:59", "2026-11-21T08:01:00-23:59",
        ] {
            #expect(unix(text) == instant, "\(text)")
        }
        #expect(RFC3339.parse("2026-11-22T10:00:00+02:00") == RFC3339.parse("2026-11-22T08:00:00Z"))
        #expect(RFC3339.parse(Substring("x2026-11-22T08:00:00Zx").dropFirst().dropLast()) != nil)
    }

    @Test("fractions of 1 to 12 digits keep nanoseconds and ignore the rest")
    func fractions() throws {
        let base = try #require(RFC3339.parse("2026-11-22T08:00:00Z"))
        let digits = "123456789123"
        for count in 1...12 {
            let text = "2026-11-22T08:00:00.\(digits.prefix(count))Z"
            let date = try #require(RFC3339.parse(text), "\(text)")
            let expected = Double(String(digits.prefix(min(count, 9))))! / pow(10, Double(min(count, 9)))
            #expect(abs(date.timeIntervalSince(base) - expected) < 1e-6, "\(text)")
        }
        #expect(RFC3339.parse("2026-11-22T08:00:00.1234567891Z") == RFC3339.parse("2026-11-22T08:00:00.123456789Z"))
        #expect(RFC3339.parse("2026-11-22T08:00:00.000000000000000000000000000000Z") == base)
        #expect(RFC3339.parse("2026-11-22T08:00:00.5+01:00") == base.addingTimeInterval(-3600 + 0.5))
    }

    @Test("calendar edges: leap days, years 0001 and 9999")
    func calendarEdges() {
        #expect(unix("2024-02-29T00:00:00Z") == 1_709_164_800)
        #expect(unix("2000-02-29T12:00:00Z") == 951_825_600)
        #expect(unix("1970-01-01T00:00:00Z") == 0)
        #expect(unix("1969-12-31T23:59:59Z") == -1)
        #expect(unix("0001-01-01T00:00:00Z") == -62_135_596_800)
        #expect(unix("9999-12-31T23:59:59Z") == 253_402_300_799)
        #expect(unix("0000-02-29T00:00:00Z") == -62_162_121_600)  // year 0 is a Gregorian leap year
        let yearZeroMinusOffset: TimeInterval = -62_167_219_200 - 86_340
        #expect(unix("0000-01-01T00:00:00+23:59") == yearZeroMinusOffset)
    }

    @Test("a leap second reads as the last Date before the next minute")
    func leapSecond() throws {
        let leap = try #require(RFC3339.parse("2016-12-31T23:59:60Z"))
        let before = try #require(RFC3339.parse("2016-12-31T23:59:59.999999Z"))
        let after = try #require(RFC3339.parse("2017-01-01T00:00:00Z"))
        #expect(before < leap)
        #expect(leap < after)
        #expect(leap.timeIntervalSinceReferenceDate.nextUp == after.timeIntervalSinceReferenceDate)
        let farLeap = try #require(RFC3339.parse("9999-12-31T23:59:60Z"))
        let farLast = try #require(RFC3339.parse("9999-12-31T23:59:59Z"))
        #expect(farLast < farLeap)
        #expect(farLeap < farLast.addingTimeInterval(1))
        #expect(RFC3339.parse("2016-12-31T23:59:60.5Z") == leap)
        #expect(RFC3339.parse("2017-01-01T08:59:60+09:00") == leap)
        // Only the last minute of a UTC day has a 61st second.
        #expect(RFC3339.parse("2026-11-22T10:30:60Z") == nil)
        #expect(RFC3339.parse("4439-10-30T00:59:60.781311-23:25") == nil)
        #expect(RFC3339.parse("2016-12-31T23:59:61Z") == nil)
    }

    @Test("invalid forms")
    func invalidForms() {
        for text in [
            "", "Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z",
            "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-01-00T00:00:00Z", "2026-01-32T00:00:00Z",
            "2026-11-22T24:00:00Z", "2026-11-22T23:60:00Z", "2026-11-22T08:00:00", "2026-11-22T08:00:00.5",
            "2026-11-22T08:00:00+2:00", "2026-11-22T08:00:00+24:00", "2026-11-22T08:00:00+02:60",
            "2026-11-22T08:00:00+0200", "2026-11-22T08:00:00+02", "2026-11-22T08:00:00+02:00Z",
            " 2026-11-22T08:00:00Z", "2026-11-22T08:00:00Z ", "2026-11-22T08:00:00Z\n", "\t2026-11-22T08:00:00Z",
            "2026-11-22 08:00:00Z", "2026-11-22_08:00:00Z", "2026-11-22T08:00:00.Z", "2026-11-22T08:00:00,5Z",
            "2026-11-22T08:00Z", "2026-11-22T8:00:00Z", "26-11-22T08:00:00Z", "+2026-11-22T08:00:00Z",
            "12026-11-22T08:00:00Z", "2026-1-22T08:00:00Z", "2026-11-2T08:00:00Z", "2026-11-22T08:0:00Z",
            "2026-11-22T08:00:0Z", "2026/11/22T08:00:00Z", "2026-11-22T08:00:00ZZ", "2026-11-22T08:00:00UTC",
            "2026-11-22T08:00:00.5x+00:00", "2026-11-22T08:00:00+02:00:00", "2026-11-22T08:00:00\u{2212}02:00",
            "٢٠٢٦-١١-٢٢T08:00:00Z", "2026-11-22T٠٨:00:00Z", "2026-11-22T08:00:00+٠٢:00",
            "2026-11-22T08:00:00.٥Z", "２０２６-11-22T08:00:00Z", "2026-11-22T08:00:00\u{0}Z",
            "2026-11-22T08:00:00Z\u{0}",
        ] {
            #expect(RFC3339.parse(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test("agrees with Foundation on ordinary inputs")
    func matchesFoundation() throws {
        let whole = Date.ISO8601FormatStyle()
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        var texts = [
            "2026-11-22T10:00:00+02:00", "2026-11-22T08:00:00Z", "2024-02-29T23:59:59-05:00", "1970-01-01T00:00:00Z",
            "2000-03-01T00:00:00+14:00", "2038-01-19T03:14:08Z", "1999-12-31T23:59:59-12:00",
        ]
        for year in stride(from: 1600, through: 2400, by: 7) {
            for month in 1...12 {
                for day in [1, 28] {
                    texts.append(
                        String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", year, month, day, month, day, year % 60))
                }
            }
        }
        for text in texts {
            let mine = try #require(RFC3339.parse(text), "\(text)")
            #expect(mine == (try whole.parse(text)), "\(text)")
        }
        for text in [
            "2026-11-22T10:00:00.123+02:00", "2026-11-22T08:00:00.5Z", "2026-11-22T08:00:00.000Z",
            "2024-02-29T23:59:59.999-05:00",
        ] {
            let mine = try #require(RFC3339.parse(text), "\(text)")
            let theirs = try fractional.parse(text)
            #expect(abs(mine.timeIntervalSince(theirs)) < 1e-6, "\(text)")
        }
    }

    @Test("day-of-month validity matches the Gregorian calendar")
    func dayValidity() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        for year in [1600, 1700, 1800, 1900, 1996, 2000, 2023, 2024, 2025, 2100, 2400] {
            for month in 1...12 {
                for day in 28...31 {
                    let text = String(format: "%04d-%02d-%02dT00:00:00Z", year, month, day)
                    let valid = DateComponents(calendar: calendar, year: year, month: month, day: day).isValidDate
                    #expect((RFC3339.parse(text) != nil) == valid, "\(text)")
                }
            }
        }
    }
}
