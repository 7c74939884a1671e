import Foundation
import RemoteConfigCore
import Testing

/// How an import's CSV reads: exports as spreadsheets write them (a byte-order mark, CRLF, quoted fields, the
/// columns in another order, blank lines) give the same rows as the plain form.
@Suite struct InsightsImportCSVTests {
    static let now = Date(timeIntervalSince1970: 1_796_256_000)  // 2026-12-03T00:00:00Z
    static let days = InsightsImport.Days(retentionDays: 90, now: now)

    @Test func spreadsheetExportsReadAsThePlainForm() throws {
        let plain = "date,platform,version,activeInstances\n2026-12-01,IOS,2.1.0,900\n2026-12-01,ANDROID,2.0.0,5\n"
        let exported =
            "\u{FEFF}version,\"date\",platform,activeInstances\r\n\"2.1.0\",2026-12-01,ios,\" 900\"\r\n\r\n"
            + "2.0.0,2026-12-01,Android,5\r\n"
        let expected = try InsightsImport.csv(plain, days: Self.days)
        #expect(expected.count == 2)
        #expect(try InsightsImport.csv(exported, days: Self.days) == expected)
        #expect(expected[0].day == Date(timeIntervalSince1970: 1_796_256_000 - 2 * 86400))
        #expect(expected[0].platform == .ios)
    }

    @Test func theRetentionAndTheDaysOfTheCalendarBoundTheDates() {
        func problem(_ date: String) -> String? {
            do {
                _ = try InsightsImport.csv(
                    "date,platform,version,activeInstances\n\(date),IOS,1.0.0,1", days: Self.days)
                return nil
            } catch {
                return error.reason
            }
        }
        #expect(problem("2026-12-03") == nil, "today")
        #expect(problem("2026-09-05") == nil, "the oldest day within 90 days")
        #expect(problem("2026-09-04") == "OUT_OF_RETENTION")
        #expect(problem("2026-12-04") == "OUT_OF_RETENTION", "tomorrow")
        #expect(problem("2026-02-30") == "INVALID_DATE")
        #expect(problem("2026-1-05") == "INVALID_DATE")
        #expect(problem("\"2026-12-01") == "UNCLOSED_QUOTE")
    }
}
