import Foundation
import RemoteConfigCore
import RemoteConfigStore

/// A delivery as a Slack incoming webhook takes it (`{"text", "blocks"}`): who changed which parameter from
/// what to what, in words.
///
/// Every text that someone else wrote (descriptions, values, condition names, key names, a store's answer) is
/// escaped as Slack documents (`&`, `<`, `>`), so it cannot mention `<!channel>` or dress up a link in our
/// name; the only markup is ours. The section stays within Slack's 3,000 characters, saying how many changes
/// it leaves out.
struct SlackMessage {
    let delivery: ClaimedDelivery
    let facts: JSONObject
    let diff: TemplateDiff?
    let publicURL: String?

    /// The most characters Slack takes in a section's text.
    static let sectionLimit = 3000
    /// The headline's share of it: the change lines get the rest.
    static let headlineLimit = 1500

    /// The message's JSON.
    var json: JSONObject {
        var text = section
        var blocks: [JSONValue] = [
            .object(["type": .string("section"), "text": .object(["type": .string("mrkdwn"), "text": .string(text)])])
        ]
        if let link = consoleLink.map(SlackText.escape) {
            text += "\n" + link
            blocks.append(
                .object([
                    "type": .string("context"),
                    "elements": .array([
                        .object(["type": .string("mrkdwn"), "text": .string("<\(link)|Open in the console>")])
                    ]),
                ]))
        }
        return ["text": .string(text), "blocks": .array(blocks)]
    }

    /// The headline, then as many change lines as fit, then how many did not and where to see them.
    var section: String {
        var text = SlackText.clip(headline, to: Self.headlineLimit)
        let lines = changeLines
        var shown = 0
        for line in lines {
            let more = lines.count - shown - 1
            // Counted in UTF-16 units, as Slack counts: never fewer than the characters a person sees.
            let room = Self.sectionLimit - (more > 0 ? moreLine(more).utf16.count : 0)
            let bullet = "\n• " + line
            guard text.utf16.count + bullet.utf16.count <= room else { break }
            text += bullet
            shown += 1
        }
        if shown < lines.count { text += moreLine(lines.count - shown) }
        return text
    }

    /// `…and 180 more changes`, with the console's link when there is one.
    private func moreLine(_ count: Int) -> String {
        let words = "\n…and \(count) more change\(count == 1 ? "" : "s")"
        guard let link = consoleLink else { return words }
        return words + ": <\(SlackText.escape(link))|see them all in the console>"
    }

    private var project: String { SlackText.escape(delivery.webhook.project) }
    private var actor: String {
        if let email = delivery.actorEmail { return SlackText.escape(email) }
        return delivery.actorName.isEmpty ? "the server" : SlackText.escape(delivery.actorName)
    }

    /// A fact of the event as escaped text.
    private func fact(_ name: String) -> String? { facts[name]?.stringValue.map(SlackText.escape) }

    private var headline: String {
        let version = fact("versionNumber") ?? "?"
        let request = fact("changeRequest") ?? ""
        switch delivery.type {
        case .templatePublished:
            var line = "\(project): version \(version) published by \(actor)"
            if facts["updateType"]?.stringValue == UpdateType.rollback.rawValue, let source = fact("rollbackSource") {
                line += " (rollback to version \(source))"
            }
            if let description = fact("description"), !description.isEmpty {
                line += ": “\(description)”"
            }
            return line
        case .changeRequestOpened: return "\(project): \(actor) opened \(request)"
        case .changeRequestApproved: return "\(project): \(request) approved by \(actor)"
        case .changeRequestRejected: return "\(project): \(request) rejected by \(actor)"
        case .changeRequestCancelled: return "\(project): \(request) cancelled by \(actor)"
        case .storeSyncFailed:
            let failures = facts["consecutiveFailures"]?.doubleValue.map { Int($0) } ?? 1
            let error = fact("error") ?? "unknown error"
            let next =
                fact("nextAttemptTime").map { ", next attempt at \($0)" }
                ?? "; the link is disabled, so nothing retries until it is enabled or run"
            let store = facts["store"]?.stringValue == "google_play" ? "Google Play sync" : "store sync"
            return "\(project): \(store) failed (\(failures) in a row\(next)): \(error)"
        case .ping: return "\(project): test message from remote-config, sent by \(actor)"
        default: return "\(project): \(SlackText.escape(delivery.type.rawValue)) by \(actor)"
        }
    }

    private var consoleLink: String? {
        guard let base = publicURL, !base.isEmpty else { return nil }
        let root = base.hasSuffix("/") ? String(base.dropLast()) : base
        // Published versions open on the History tab (with its diffs), change requests on Changes.
        let tab =
            switch delivery.type.family {
            case "changeRequest": "changes"
            case "storeSync": "store-sync"
            default: "history"
            }
        return "\(root)/console#/projects/\(project)/\(tab)"
    }

    /// One line per changed value: `name: before → after when condition`, escaped.
    var changeLines: [String] {
        guard let diff else { return [] }
        let e = SlackText.escape
        var lines: [String] = []
        for change in diff.parametersAdded {
            lines.append("\(e(change.name)) added: \(Self.describe(change.after))")
        }
        for change in diff.parametersChanged {
            lines += Self.valueChanges(e(change.name), change.before, change.after)
        }
        for change in diff.parametersRemoved { lines.append("\(e(change.name)) removed") }
        for change in diff.conditionsAdded { lines.append("condition \(e(change.name)) added") }
        for change in diff.conditionsChanged { lines.append("condition \(e(change.name)) changed") }
        for change in diff.conditionsRemoved { lines.append("condition \(e(change.name)) removed") }
        return lines
    }

    /// The lines of one changed parameter (`name` escaped already); condition names and values are escaped here.
    static func valueChanges(_ name: String, _ before: JSONValue?, _ after: JSONValue?) -> [String] {
        let oldDefault = before?["defaultValue"]
        let newDefault = after?["defaultValue"]
        var lines: [String] = []
        if oldDefault != newDefault {
            lines.append("\(name): \(value(oldDefault)) → \(value(newDefault))")
        }
        let oldConditional = before?["conditionalValues"]?.objectValue ?? JSONObject()
        let newConditional = after?["conditionalValues"]?.objectValue ?? JSONObject()
        for condition in newConditional.keys {
            let was = oldConditional[condition] ?? oldDefault
            let now = newConditional[condition]
            if was != now {
                lines.append("\(name): \(value(was)) → \(value(now)) when \(SlackText.escape(condition))")
            }
        }
        for condition in oldConditional.keys where newConditional[condition] == nil {
            lines.append(
                "\(name): no longer \(value(oldConditional[condition])) when \(SlackText.escape(condition))")
        }
        if lines.isEmpty { lines.append("\(name) changed") }
        return lines
    }

    /// A parameter value (`{"value": …}` or `{"useInAppDefault": true}`) in words, escaped.
    static func value(_ json: JSONValue?) -> String {
        guard let json else { return "(none)" }
        if json["useInAppDefault"]?.boolValue == true { return "in-app default" }
        if let text = json["value"]?.stringValue {
            // Cut before escaping, so that no escape is cut in half.
            return SlackText.escape(text.count > 80 ? String(text.prefix(77)) + "…" : text)
        }
        return "(rollout)"
    }

    static func describe(_ parameter: JSONValue?) -> String {
        value(parameter?["defaultValue"])
    }
}
