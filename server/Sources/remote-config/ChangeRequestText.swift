import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// Change requests as text for people.
enum ChangeRequestText {
    /// One line after an action: what was done and the state it left; the request itself with `--json`.
    static func report(_ done: String, _ request: ChangeRequest, project: String, json: Bool) throws {
        if json { return try Output.json(request) }
        var line = "\(done) change request \(request.id) of \(project): it is \(request.state)"
        if request.state == "SCHEDULED", let time = request.publishTime { line += " for \(RFC3339.format(time))" }
        Output.line(line + ".")
    }

    /// The request's fields, one a line, then its diff against the published template.
    static func details(_ request: ChangeRequest, diff: JSONObject, project: String, settings: Project?) -> String {
        var rows: [(String, String)] = [
            ("State", request.state),
            ("Description", request.description.isEmpty ? "(none)" : TerminalText.field(request.description)),
            ("Author", actor(request.author)),
            ("Created", RFC3339.format(request.createTime)),
            ("Base version", request.baseVersionNumber),
            ("Publish time", publishTime(request)),
        ]
        if let source = request.rollbackSource { rows.append(("Rolls back to", "version \(source)")) }
        if let version = request.publishedVersionNumber { rows.append(("Published as", "version \(version)")) }
        for (closure, label) in [(request.rejection, "Rejected by"), (request.cancellation, "Cancelled by")] {
            guard let closure else { continue }
            rows.append((label, review(closure)))
        }
        var count = "\(request.approvals.count)"
        if let settings, settings.requireApproval { count += " of \(settings.approvalsRequired) required" }
        rows.append(("Approvals", count))
        let width = rows.map(\.0.count).max() ?? 0
        var lines = ["Change request \(request.id) of \(project)"]
        lines += rows.map { label, value in
            "  \(label):" + String(repeating: " ", count: width - label.count + 1) + value
        }
        for approval in request.approvals { lines.append("    " + review(approval)) }
        let from = diff["from"]?.stringValue ?? "0"
        let base = request.baseVersionNumber
        lines.append("")
        if let published = request.publishedVersionNumber {
            lines.append("What publishing it changed (version \(from) → \(published)):")
        } else if from == "0" {
            lines.append("Against the empty template (nothing published yet):")
        } else if from != base, open.contains(request.state) {
            // A scheduled publish is forced (nobody is there to resolve the conflict); `changes publish` is not.
            let consequence =
                request.state == "SCHEDULED"
                ? "the server still publishes it at its time; cancel it if that is not wanted"
                : "`changes publish` refuses it without --force"
            lines.append(
                "Against the published version \(from) (published after its base version \(base): \(consequence)):")
        } else {
            lines.append("Against the published version \(from):")
        }
        lines.append(DiffText.render(diff))
        return lines.joined(separator: "\n")
    }

    /// The states in which a request may still be published.
    static let open: Swift.Set<String> = ["OPEN", "APPROVED", "SCHEDULED"]

    private static func publishTime(_ request: ChangeRequest) -> String {
        if let time = request.publishTime { return RFC3339.format(time) }
        return open.contains(request.state) ? "(none: published by `changes publish`)" : "(none)"
    }

    /// `Alice (apiKeys/q9r…) at <time>: "comment"`.
    private static func review(_ review: ChangeRequestReview) -> String {
        var text = "\(actor(review.actor)) at \(RFC3339.format(review.time))"
        if let comment = review.comment, !comment.isEmpty {
            text += ": " + TerminalText.field(JSONValue.string(comment).jsonString)
        }
        return text
    }

    /// `Alice (apiKeys/q9r…)`, `alice@example.com (users/…)` or `alice@example.com via CI (apiKeys/…)` for a
    /// person, or `the server` for its own actions.
    static func actor(_ actor: ActingKey) -> String {
        let name = TerminalText.field(actor.displayName)
        if let email = actor.email, let user = actor.user {
            let person = TerminalText.field(email)
            guard let key = actor.key else { return "\(person) (\(user))" }
            return "\(person) via \(name.isEmpty ? key : "\(name) (\(key))")"
        }
        guard let key = actor.key else { return name.isEmpty ? "the server" : "\(name) (the server)" }
        return name.isEmpty ? key : "\(name) (\(key))"
    }
}
