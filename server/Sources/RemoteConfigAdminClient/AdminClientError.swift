import Foundation

/// What went wrong with an admin call, typed so the command line can pick an exit code and a sentence.
public enum AdminClientError: Error, Sendable, CustomStringConvertible {
    /// The server answered with an error in the API's shape (or at least an error status).
    case server(ServerError)
    /// No answer: connection refused, unknown host, timeout. `server` is the base URL that was tried.
    case unreachable(server: String, reason: String)
    /// An answer that is not what the route promises (not JSON, a missing field).
    case badResponse(String)

    public var description: String {
        switch self {
        case .server(let error): return error.description
        case .unreachable(let server, let reason): return "cannot reach the server at \(server): \(reason)"
        case .badResponse(let text): return "the server's answer was not understood: \(text)"
        }
    }
}
