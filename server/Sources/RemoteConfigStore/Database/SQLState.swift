import PostgresNIO

/// A PostgreSQL error state (SQLSTATE, five characters), and what the store makes of its class.
struct SQLState: Hashable, Sendable {
    let code: String

    /// `42P04`, duplicate_database: another start-up created the database first.
    static let duplicateDatabase = SQLState(code: "42P04")

    init(code: String) { self.code = code }

    /// The state of an error the server raised; nil for any other error.
    init?(of error: any Error) {
        guard let code = (error as? PSQLError)?.serverInfo?[.sqlState] else { return nil }
        self.code = code
    }

    /// Whether the database cannot serve now, whatever was asked: class 08 (connection exception), class 53
    /// (insufficient resources), and 57P (operator intervention: shutting down, cannot connect now).
    var meansUnavailable: Bool {
        code.hasPrefix("08") || code.hasPrefix("53") || code.hasPrefix("57P")
    }
}
