import Foundation

/// Turns `'2026-12-01T00:00:00'` plus an optional IANA zone into an instant.
enum DateTimeLiteral {
    enum Failure: Error {
        case badDateTime(String)
        case badTimeZone(String)
    }

    private static let format = "expected a date-time like '2026-12-01T00:00:00'"

    /// Accepts `YYYY-MM-DDTHH:MM:SS` with optional fractional seconds and an optional `Z` or
    /// `±HH:MM` suffix (which then stands instead of a zone argument).
    static func resolve(_ text: String, timeZone zoneName: String?) -> Result<ConditionDate, Failure> {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return .failure(.badDateTime(format)) }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return .failure(.badDateTime(format)) }

        var index = 19
        var nanoseconds = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            let fractionStart = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                index += 1
            }
            guard index > fractionStart, index - fractionStart <= 9, let fraction = number(fractionStart..<index) else {
                return .failure(.badDateTime(format))
            }
            nanoseconds = fraction * Int(pow(10.0, Double(9 - (index - fractionStart))))
        }

        var zone = TimeZone(identifier: "UTC")!
        if index < bytes.count {
            // An explicit offset in the text.
            guard zoneName == nil else {
                return .failure(.badDateTime("give either an offset in the date-time or a time zone, not both"))
            }
            if bytes[index] == UInt8(ascii: "Z"), index + 1 == bytes.count {
                index += 1
            } else if bytes.count == index + 6, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"),
                bytes[index + 3] == UInt8(ascii: ":"), let hours = number(index + 1..<index + 3),
                let minutes = number(index + 4..<index + 6), hours < 24, minutes < 60,
                let fixed = TimeZone(
                    secondsFromGMT: (bytes[index] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
                )
            {
                zone = fixed
            } else {
                return .failure(.badDateTime(format))
            }
        } else if let zoneName {
            guard let named = TimeZone(identifier: zoneName) else {
                return .failure(
                    .badTimeZone("unknown time zone '\(zoneName)'; expected an IANA name like 'Asia/Tokyo'"))
            }
            zone = named
        }

        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(
            year: year,
            month: month,
            day: day,
            hour: hour,
            minute: minute,
            second: second,
            nanosecond: nanoseconds
        )
        guard let date = calendar.date(from: components) else { return .failure(.badDateTime(format)) }
        // Calendar rolls 31 February over into March; reject instead of guessing.
        let check = calendar.dateComponents([.year, .month, .day], from: date)
        guard check.year == year, check.month == month, check.day == day else {
            return .failure(.badDateTime("'\(text)' is not a valid date"))
        }
        return .success(ConditionDate(text: text, timeZone: zoneName, instant: date))
    }
}
