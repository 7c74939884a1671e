import Foundation

/// A webhook URL as the audit log keeps it: scheme and host. Viewers read the log, and the rest of a URL can be a
/// credential (a Slack incoming webhook's path is its token).
public enum WebhookAuditURL {
    /// `https://hooks.slack.com` for `https://hooks.slack.com/services/T…/B…/secret`.
    public static func redact(_ text: String) -> String {
        guard let components = URLComponents(string: text), let scheme = components.scheme,
            let host = components.host, !host.isEmpty
        else { return "(not a URL)" }
        let shown = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme.lowercased())://\(shown.lowercased())"
    }
}
