import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

extension JSONValue {
    /// A string member as text, or "" (for table cells).
    func text(_ key: String) -> String { self[key]?.stringValue ?? "" }
}

/// Runs an admin command's body, turning every failure into one sentence on stderr and its exit status.
func runAdmin(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as CommandFailure {
        Output.note("remote-config: error: \(failure.message)")
        throw ExitCode(failure.status.rawValue)
    } catch let error as AdminClientError {
        Output.note("remote-config: error: \(sentence(error))")
        throw ExitCode(status(of: error).rawValue)
    }
}

/// The exit status for an admin client error.
func status(of error: AdminClientError) -> ExitStatus {
    switch error {
    case .server(let server): return ExitStatus(httpStatus: server.code)
    case .unreachable: return .unavailable
    case .badResponse: return .unavailable
    }
}

/// The error as a person reads it: the server's sentence, what the status means, and each field at fault.
func sentence(_ error: AdminClientError) -> String {
    guard case .server(let server) = error else { return error.description }
    var text = server.description
    let reasons = Swift.Set(server.details.compactMap(\.reason))
    switch server.code {
    case 401: text += "\n  (check --token / RC_TOKEN)"
    case 403 where server.approvalRequired:
        text += "\n  (propose it with `remote-config changes create`; another key approves it)"
    case 403 where reasons.contains("APPROVAL_REQUIRED"):
        text += "\n  (another key approves it with `remote-config changes approve`)"
    case 403 where !reasons.isDisjoint(with: ["SELF_APPROVAL", "NOT_AUTHOR"]):
        break  // The server's sentence says who may.
    case 403: text += "\n  (this key's role or project does not allow it)"
    case 409 where !reasons.isDisjoint(with: ["PROMOTION_CONFLICT", "CONDITION_CONFLICT"]):
        text += "\n  (take the source's with `promote --only a,b`, or all of them with --overwrite-target-changes)"
    case 409 where reasons.contains("BASE_VERSION_CHANGED"):
        text += "\n  (see what it changes now with `remote-config changes show`, or publish it with --force)"
    case 503:
        text += "\n  (the server is up but cannot work now; try again shortly)"
    default: break
    }
    return text
}

extension ServerError {
    /// A publish refused because the project publishes only through approved change requests.
    var approvalRequired: Bool {
        code == 403 && details.contains { $0.field == "requireApproval" && $0.reason == "APPROVAL_REQUIRED" }
    }
}

/// A command's `--help` discussion: paragraphs (wrapped by ArgumentParser to the terminal), then examples,
/// one command a line.
func helpText(_ paragraphs: [String], _ examples: String...) -> String {
    let example = "Example:\n" + examples.map { "  " + $0 }.joined(separator: "\n")
    return (paragraphs + [example]).joined(separator: "\n\n")
}
