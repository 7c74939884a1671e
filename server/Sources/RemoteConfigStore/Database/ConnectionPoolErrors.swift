// The one file that imports postgres-nio's underscored pool module. postgres-nio 1.33 throws its pool's own
// `ConnectionPoolError` (pool shut down, request cancelled, circuit breaker tripped) from `withConnection` as
// is: the mapping to `PSQLError` it has (`mapToPSQLError`) is never called, and PostgresNIO neither re-exports
// the type nor offers public API to recognise it. Kept here so a change of that module touches one file.
import _ConnectionPoolModule

/// Recognises the errors of postgres-nio's connection pool, which its public API does not name.
enum ConnectionPoolErrors {
    /// Whether `error` is the pool's own: it failed before the call got a connection, so nothing ran.
    static func isPoolError(_ error: any Error) -> Bool {
        error is ConnectionPoolError
    }

    /// One of each error the pool throws, for tests of what they map to.
    static let all: [any Error] = [
        ConnectionPoolError.poolShutdown, ConnectionPoolError.requestCancelled,
        ConnectionPoolError.connectionCreationCircuitBreakerTripped,
    ]
}
