import Foundation
import RemoteConfigCore
import RemoteConfigStore

/// A delivery as a Slack incoming webhook takes it (`{"text", "blocks"}`): who changed which parameter from
/// what to what, in words.
struct SlackMessage {
    let delivery: ClaimedDelivery
    let facts: JSONObject
    let diff: TemplateDiff?
    let publicURL: String?

    /// The message's JSON.
    var json: JSONObject {
        let lines = changeLines
        var text = headline
        if !lines.isEmpty { text += "\n" + lines.map { "• " + $0 }.joined(separator: "\n") }
        var blocks: [JSONValue] = [
            .object(["type": .string("section"), "text": .object(["type": .string("mrkdwn"), "text": .string(text)])])
        ]
        if let link = consoleLink {
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

    private var project: String { delivery.webhook.project }
    private var actor: String {
        if let email = delivery.actorEmail { return email }
        return delivery.actorName.isEmpty ? "the server" : delivery.actorName
    }

    private var headline: String {
        let version = facts["versionNumber"]?.stringValue ?? "?"
        let request = facts["changeRequest"]?.stringValue ?? ""
        switch delivery.type {
        case "template.published":
            var line = "\(project): version \(version) published by \(actor)"
            if let type = facts["updateType"]?.stringValue, type == "ROLLBACK",
                let source = facts["rollbackSource"]?.stringValue
            {
                line += " (rollback to version \(source))"
            }
            if let description = facts["description"]?.stringValue, !description.isEmpty {
                line += ": “\(description)”"
            }
            return line
        case "changeRequest.opened": return "\(project): \(actor) opened \(request)"
        case "changeRequest.approved": return "\(project): \(request) approved by \(actor)"
        case "changeRequest.rejected": return "\(project): \(request) rejected by \(actor)"
        case "changeRequest.cancelled": return "\(project): \(request) cancelled by \(actor)"
        case "storeSync.failed":
            let failures = facts["consecutiveFailures"]?.doubleValue.map { Int($0) } ?? 1
            let error = facts["error"]?.stringValue ?? "unknown error"
            let next = facts["nextAttemptTime"]?.stringValue.map { ", next attempt at \($0)" } ?? ""
            return "\(project): store sync failed (\(failures) in a row\(next)): \(error)"
        case "ping": return "\(project): test message from remote-config, sent by \(actor)"
        default: return "\(project): \(delivery.type) by \(actor)"
        }
    }

    private var consoleLink: String? {
        guard let base = publicURL, !base.isEmpty else { return nil }
        let root = base.hasSuffix("/") ? String(base.dropLast()) : base
        // Published versions open on the History tab (with its diffs), change requests on Changes.
        let tab =
            delivery.type.hasPrefix("changeRequest.")
            ? "changes" : delivery.type.hasPrefix("storeSync.") ? "store-sync" : "history"
        return "\(root)/console#/projects/\(project)/\(tab)"
    }

    /// One line per changed value: `name: before → after when condition`.
    var changeLines: [String] {
        guard let diff else { return [] }
        var lines: [String] = []
        for change in diff.parametersAdded {
            lines.append("\(change.name) added: \(Self.describe(change.after))")
        }
        for change in diff.parametersChanged {
            lines += Self.valueChanges(change.name, change.before, change.after)
        }
        for change in diff.parametersRemoved { lines.append("\(change.name) removed") }
        for change in diff.conditionsAdded { lines.append("condition \(change.name) added") }
        for change in diff.conditionsChanged { lines.append("condition \(change.name) changed") }
        for change in diff.conditionsRemoved { lines.append("condition \(change.name) removed") }
        return lines
    }

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
            if was != now { lines.append("\(name): \(value(was)) → \(value(now)) when \(condition)") }
        }
        for condition in oldConditional.keys where newConditional[condition] == nil {
            lines.append("\(name): no longer \(value(oldConditional[condition])) when \(condition)")
        }
        if lines.isEmpty { lines.append("\(name) changed") }
        return lines
    }

    /// A parameter value (`{"value": …}` or `{"useInAppDefault": true}`) in words.
    static func value(_ json: JSONValue?) -> String {
        guard let json else { return "(none)" }
        if json["useInAppDefault"]?.boolValue == true { return "in-app default" }
        if let text = json["value"]?.stringValue { return text.count > 80 ? String(text.prefix(77)) + "…" : text }
        return "(rollout)"
    }

    static func describe(_ parameter: JSONValue?) -> String {
        value(parameter?["defaultValue"])
    }
}
