import PostgresNIO

/// What a store reports to the layers above; the server maps each case to one HTTP error.
public enum StoreError: Error, Equatable, CustomStringConvertible {
    /// The database cannot be reached: a connection failed, or it did not answer in time and a direct
    /// connection did not get an answer either.
    case unavailable(String)
    /// The database answers, but this call took longer than the store's deadline.
    case timedOut(after: Duration)
    /// A row with the same key exists; `field` is the request field that carried the key, when one did.
    case alreadyExists(String, field: StoreErrorField? = nil)
    /// No such row; `field` is the request field that referred to it, when one did.
    case notFound(String, field: StoreErrorField? = nil)

    public var description: String {
        switch self {
        case .unavailable(let reason): "database unavailable: \(reason)"
        case .timedOut(let limit): "database call timed out after \(limit), while the database answers"
        case .alreadyExists(let what, _): "\(what) already exists"
        case .notFound(let what, _): "\(what) not found"
        }
    }

    /// Maps an error from PostgresNIO: SQL errors the server raised pass through, anything about the
    /// connection itself means the database is unavailable.
    static func map(_ error: any Error) -> any Error {
        if error is StoreError { return error }
        if let error = error as? PostgresTransactionError {
            // What went wrong inside the transaction matters; a failed BEGIN/COMMIT/ROLLBACK is the connection.
            if let inner = error.closureError { return map(inner) }
            let failure = error.beginError ?? error.commitError ?? error.rollbackError
            return map(failure ?? StoreError.unavailable("transaction"))
        }
        if let error = error as? PSQLError {
            if error.code == .server {
                if let state = SQLState(of: error), state.meansUnavailable {
                    return StoreError.unavailable(error.serverInfo?[.message] ?? state.code)
                }
                return error
            }
            return StoreError.unavailable("\(error.code)")
        }
        if ConnectionPoolErrors.isPoolError(error) {
            // The pool was replaced or is shutting down before the call got a connection: nothing ran.
            return StoreError.unavailable("connection pool: \(error)")
        }
        return error
    }
}
