import Foundation

/// Daily active instances per version from elsewhere (App Store Connect, the Play Console), read from the CSV or
/// JSON rows of `insights:import` and checked whole: the first bad row fails the call, naming its line and field.
public enum InsightsImport {
    /// One day's active instances of one version on one platform.
    public struct Row: Sendable, Equatable {
        /// The UTC day's start.
        public let day: Date
        public let platform: Platform
        public let version: String
        public let activeInstances: Int
    }

    /// A row that cannot be kept; `field` is the path the error names (`lines.4.version`, `rows.3.version`).
    public struct Problem: Error, Equatable {
        public let field: String
        public let reason: String
        public let message: String
    }

    /// The most rows one call may carry.
    public static let maximumRows = 100_000
    /// The largest count one row may give: more app instances than there are phones is a mistake.
    public static let maximumInstances = 100_000_000_000
    /// The CSV header, in this order of columns or any other.
    public static let columns = ["date", "platform", "version", "activeInstances"]

    /// The days an import may name: from the oldest day still within the retention to today (UTC).
    public struct Days: Sendable {
        public let earliest: Date
        public let latest: Date

        /// The days within `retentionDays` of `now`, today included.
        public init(retentionDays: Int, now: Date = Date()) {
            let today = (now.timeIntervalSince1970 / 86400).rounded(.down) * 86400
            latest = Date(timeIntervalSince1970: today)
            earliest = Date(timeIntervalSince1970: today - Double(retentionDays - 1) * 86400)
        }
    }

    /// The rows of a CSV file whose first line is the header (`columns`, in any order); blank lines are skipped,
    /// fields may be quoted as RFC 4180 says, lines may end in CRLF.
    public static func csv(_ text: String, days: Days) throws(Problem) -> [Row] {
        var lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated()
            .map { (number: $0.offset + 1, text: $0.element) }
        if let first = lines.first, first.text.hasPrefix("\u{FEFF}") {
            lines[0].text = first.text.dropFirst()
        }
        guard let header = lines.first(where: { !$0.text.allSatisfy(\.isWhitespace) }) else {
            throw Problem(field: "body", reason: "EMPTY", message: "the file has no header line")
        }
        let names = try fields(header.text, line: header.number).map { $0.trimmingCharacters(in: .whitespaces) }
        var position: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            guard columns.contains(name), position[name] == nil else {
                throw Problem(
                    field: "lines.\(header.number)", reason: "INVALID_HEADER",
                    message:
                        "line \(header.number): the header must be \(columns.joined(separator: ",")), not \(names.joined(separator: ","))"
                )
            }
            position[name] = index
        }
        guard position.count == columns.count else {
            throw Problem(
                field: "lines.\(header.number)", reason: "INVALID_HEADER",
                message: "line \(header.number): the header must be \(columns.joined(separator: ","))")
        }
        let rows = lines.filter { $0.number > header.number && !$0.text.allSatisfy(\.isWhitespace) }
        guard rows.count <= maximumRows else { throw tooMany(rows.count) }
        var checker = Checker(days: days)
        for line in rows {
            let values = try fields(line.text, line: line.number)
            guard values.count == columns.count else {
                throw Problem(
                    field: "lines.\(line.number)", reason: "WRONG_FIELD_COUNT",
                    message: "line \(line.number): \(values.count) fields where the header has \(columns.count)")
            }
            try checker.add(
                date: values[position["date"]!], platform: values[position["platform"]!],
                version: values[position["version"]!], count: values[position["activeInstances"]!],
                at: { "lines.\(line.number).\($0)" }, naming: "line \(line.number)")
        }
        return checker.rows
    }

    /// The rows of a JSON body `{"rows": [{"date", "platform", "version", "activeInstances"}]}`.
    public static func json(_ body: JSONValue, days: Days) throws(Problem) -> [Row] {
        guard case .object(let object) = body, case .array(let rows)? = object["rows"] else {
            throw Problem(field: "rows", reason: "REQUIRED", message: "the body must be {\"rows\": [ … ]}")
        }
        guard rows.count <= maximumRows else { throw tooMany(rows.count) }
        var checker = Checker(days: days)
        for (index, row) in rows.enumerated() {
            guard case .object(let fields) = row else {
                throw Problem(
                    field: "rows.\(index)", reason: "NOT_AN_OBJECT", message: "rows[\(index)] is not an object")
            }
            for name in fields.keys where !columns.contains(name) {
                throw Problem(
                    field: "rows.\(index).\(name)", reason: "UNKNOWN_FIELD",
                    message: "rows[\(index)]: \(name) is not one of \(columns.joined(separator: ", "))")
            }
            func text(_ name: String) throws(Problem) -> String {
                switch fields[name] {
                case .string(let value)?: return value
                case .number(let value)? where name == "activeInstances": return value
                case nil:
                    throw Problem(
                        field: "rows.\(index).\(name)", reason: "REQUIRED",
                        message: "rows[\(index)]: \(name) is required")
                default:
                    throw Problem(
                        field: "rows.\(index).\(name)", reason: "WRONG_TYPE",
                        message: "rows[\(index)]: \(name) must be a \(name == "activeInstances" ? "number" : "string")")
                }
            }
            try checker.add(
                date: try text("date"), platform: try text("platform"), version: try text("version"),
                count: try text("activeInstances"), at: { "rows.\(index).\($0)" }, naming: "rows[\(index)]")
        }
        return checker.rows
    }

    static func tooMany(_ count: Int) -> Problem {
        Problem(
            field: "rows", reason: "TOO_MANY_ROWS",
            message: "\(count) rows where one import takes at most \(maximumRows): import in parts")
    }

    /// Checks rows one by one and keeps them: each field, each day within the retention, each day, platform and
    /// version once, and at most `InsightVersion.maximumPerPlatform` versions per day and platform.
    struct Checker {
        let days: Days
        var rows: [Row] = []
        var seen: Set<String> = []
        var versionsPerDay: [String: Int] = [:]

        mutating func add(
            date: String, platform: String, version: String, count: String, at field: (String) -> String,
            naming row: String
        ) throws(Problem) {
            guard rows.count < InsightsImport.maximumRows else { throw InsightsImport.tooMany(rows.count + 1) }
            let date = date.trimmingCharacters(in: .whitespaces)
            guard let day = Self.day(date) else {
                throw Problem(
                    field: field("date"), reason: "INVALID_DATE",
                    message: "\(row): date \(date) is not a day like 2026-11-30")
            }
            guard day >= days.earliest, day <= days.latest else {
                throw Problem(
                    field: field("date"), reason: "OUT_OF_RETENTION",
                    message:
                        "\(row): \(date) is \(day > days.latest ? "in the future" : "older than the insights retention")"
                )
            }
            guard let platform = Platform(caseInsensitive: platform.trimmingCharacters(in: .whitespaces)) else {
                throw Problem(
                    field: field("platform"), reason: "INVALID_PLATFORM",
                    message: "\(row): platform must be IOS, ANDROID or WEB")
            }
            let version = version.trimmingCharacters(in: .whitespaces)
            guard InsightVersion.label(version) == version else {
                throw Problem(
                    field: field("version"), reason: "INVALID_VERSION",
                    message: "\(row): \(version.prefix(80)) is not a version like 2.1.0")
            }
            guard let instances = Int(count.trimmingCharacters(in: .whitespaces)), instances >= 0,
                instances <= InsightsImport.maximumInstances
            else {
                throw Problem(
                    field: field("activeInstances"), reason: "INVALID_COUNT",
                    message:
                        "\(row): activeInstances must be a whole number from 0 to \(InsightsImport.maximumInstances)")
            }
            guard seen.insert("\(date)|\(platform.rawValue)|\(version)").inserted else {
                throw Problem(
                    field: field("version"), reason: "DUPLICATE_ROW",
                    message: "\(row): \(date), \(platform.rawValue), \(version) is given twice")
            }
            let dayKey = "\(date)|\(platform.rawValue)"
            versionsPerDay[dayKey, default: 0] += 1
            guard versionsPerDay[dayKey]! <= InsightVersion.maximumPerPlatform else {
                throw Problem(
                    field: field("version"), reason: "TOO_MANY_VERSIONS",
                    message:
                        "\(row): more than \(InsightVersion.maximumPerPlatform) versions on \(date) for \(platform.rawValue)"
                )
            }
            rows.append(Row(day: day, platform: platform, version: version, activeInstances: instances))
        }

        /// `YYYY-MM-DD` as the start of that UTC day; nil for anything else.
        static func day(_ text: String) -> Date? {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
                let year = Int(parts[0]), let month = Int(parts[1]), let dayOfMonth = Int(parts[2])
            else { return nil }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .gmt
            let components = DateComponents(year: year, month: month, day: dayOfMonth)
            guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
            return date
        }
    }

    /// One CSV line's fields: separated by commas, each either bare or in double quotes (`""` for a quote).
    static func fields(_ line: Substring, line number: Int) throws(Problem) -> [String] {
        var fields: [String] = []
        var current = ""
        var quoted = false
        var wasQuoted = false
        var iterator = line.makeIterator()
        var pending: Character? = iterator.next()
        while let character = pending {
            pending = iterator.next()
            if quoted {
                if character == "\"" {
                    if pending == "\"" {
                        current.append("\"")
                        pending = iterator.next()
                    } else {
                        quoted = false
                    }
                } else {
                    current.append(character)
                }
            } else if character == "," {
                fields.append(current)
                current = ""
                wasQuoted = false
            } else if character == "\"", current.allSatisfy(\.isWhitespace), !wasQuoted {
                current = ""
                quoted = true
                wasQuoted = true
            } else {
                current.append(character)
            }
        }
        guard !quoted else {
            throw Problem(
                field: "lines.\(number)", reason: "UNCLOSED_QUOTE", message: "line \(number): a quote is not closed")
        }
        fields.append(current)
        return fields
    }
}
