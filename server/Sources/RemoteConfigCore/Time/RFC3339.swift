import Foundation

/// Reads RFC 3339 §5.6 `date-time` strictly: `YYYY-MM-DD`, `T` or `t`, `hh:mm:ss`, an optional `.` and
/// one or more digits, then `Z`, `z` or `±hh:mm`; ASCII digits only, exact digit counts, no whitespace.
///
/// Ranges are checked: month 01–12, a day that exists in that month of the proleptic Gregorian
/// calendar (years 0000–9999), hour 00–23, minute 00–59, second 00–60, offset hours 00–23 and minutes
/// 00–59. Fractions keep 9 digits (nanoseconds); further digits must be digits but are ignored.
/// A leap second (`:60`, only at 23:59 UTC; its fraction is ignored) is read as the last `Date` before
/// the next minute, so it sorts after the rest of its minute and before the next one.
/// The instant is computed arithmetically (no `Calendar`, no formatter), so it is locale-independent.
public enum RFC3339 {
    /// The instant `text` names, or `nil` when it is not an RFC 3339 `date-time` by the rules above.
    public static func parse(_ text: some StringProtocol) -> Date? {
        if let result = text.utf8.withContiguousStorageIfAvailable({ parse(bytes: $0) }) { return result }
        return Array(text.utf8).withUnsafeBufferPointer { parse(bytes: $0) }
    }

    private static func parse(bytes: UnsafeBufferPointer<UInt8>, millisecondsOnly: Bool = false) -> Date? {
        // `YYYY-MM-DDThh:mm:ss` is 19 bytes; at least `Z` follows.
        guard bytes.count >= 20 else { return nil }

        func digit(_ index: Int) -> Int? {
            let byte = bytes[index]
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            return Int(byte &- UInt8(ascii: "0"))
        }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for index in start..<start + count {
                guard let next = digit(index) else { return nil }
                value = value * 10 + next
            }
            return value
        }

        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour <= 23, minute <= 59, second <= 60
        else { return nil }

        var index = 19
        var nanoseconds = 0
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            let start = index
            while index < bytes.count, let next = digit(index) {
                if index - start < 9 { nanoseconds = nanoseconds * 10 + next }
                index += 1
            }
            let count = index - start
            guard count > 0 else { return nil }
            for _ in min(count, 9)..<9 { nanoseconds *= 10 }
            if millisecondsOnly { nanoseconds -= nanoseconds % 1_000_000 }
        }

        guard index < bytes.count else { return nil }
        var offsetSeconds = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            guard index + 1 == bytes.count else { return nil }
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            guard index + 6 == bytes.count, bytes[index + 3] == UInt8(ascii: ":"),
                let offsetHour = number(index + 1, 2), let offsetMinute = number(index + 4, 2),
                offsetHour <= 23, offsetMinute <= 59
            else { return nil }
            offsetSeconds = offsetHour * 3600 + offsetMinute * 60
            if bytes[index] == UInt8(ascii: "-") { offsetSeconds = -offsetSeconds }
        default:
            return nil
        }

        // Leap seconds are inserted at the end of a UTC day (23:59:60Z), as RFC 3339 §5.7 and JSON Schema's
        // date-time format have it: a :60 at any other minute names no instant.
        if second == 60 {
            let utcMinuteOfDay = ((hour * 60 + minute - offsetSeconds / 60) % 1440 + 1440) % 1440
            guard utcMinuteOfDay == 23 * 60 + 59 else { return nil }
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let unixSeconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        // Relative to 2001-01-01 (Date's own epoch) so that the Double keeps the most precision.
        let referenceSeconds = unixSeconds - 978_307_200
        if second == 60 {
            // `:59.999999999` would round up to the next minute in a Double; take the value just below it
            // (to the millisecond: the last one of the minute).
            if millisecondsOnly { return Date(timeIntervalSinceReferenceDate: Double(referenceSeconds) - 0.001) }
            return Date(timeIntervalSinceReferenceDate: Double(referenceSeconds).nextDown)
        }
        return Date(timeIntervalSinceReferenceDate: Double(referenceSeconds) + Double(nanoseconds) / 1e9)
    }

    /// The earliest instant the server takes in (0001-01-01T00:00:00Z) and the first one after the latest
    /// (10000-01-01T00:00:00Z): every time in between is written with a four-digit year.
    public static let earliest = Date(timeIntervalSince1970: -62_135_596_800)
    public static let end = Date(timeIntervalSince1970: 253_402_300_800)

    /// The instant `text` names to the millisecond (further digits dropped, never rounded up): what the server
    /// keeps of a time it is given, so that it answers what it stores, and `…59.999999999Z` stays in its second
    /// (a Double near year 9999 cannot tell nanoseconds apart, and would round it into the next year).
    public static func parseMilliseconds(_ text: some StringProtocol) -> Date? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { parse(bytes: $0, millisecondsOnly: true) }
    }

    /// `date` as `YYYY-MM-DDThh:mm:ss.sssZ` in the proleptic Gregorian calendar (no Julian dates before
    /// 1582-10-15, unlike Foundation's formatters), rounded to the nearest millisecond; computed arithmetically,
    /// so it is the exact inverse of `parse` for times in `earliest..<end` kept to the millisecond.
    public static func format(_ date: Date) -> String {
        let total = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (days, millisecondOfDay) = total.quotientAndRemainder(dividingBy: 86_400_000)
        let (day, dayMilliseconds) =
            millisecondOfDay < 0
            ? (Int(days) - 1, Int(millisecondOfDay) + 86_400_000) : (Int(days), Int(millisecondOfDay))
        let (year, month, dayOfMonth) = civilFromDays(day)
        let seconds = dayMilliseconds / 1000
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(abs(value))
            return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(dayOfMonth, 2))T\(pad(seconds / 3600, 2)):"
            + "\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(dayMilliseconds % 1000, 3))Z"
    }

    /// Year, month and day of the day `days` after 1970-01-01 (Howard Hinnant's `civil_from_days`).
    private static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
            return leap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }

    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
