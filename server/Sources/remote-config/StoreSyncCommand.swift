import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// `remote-config store-sync google-play set|show|run`.
struct StoreSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-sync",
        abstract: "Keep parameters in step with the app's store listing.",
        subcommands: [GooglePlay.self])

    /// `store-sync google-play …`.
    struct GooglePlay: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "google-play",
            abstract: "Keep parameters in step with the app's live release on Google Play.",
            discussion: helpText(
                [
                    "The server reads the track through the Google Play Developer API with a service account the team gives it (its JSON key, sent once with --key and never shown again). See docs/api.md, Google Play version sync, for setting up the account."
                ],
                "remote-config store-sync google-play set -p my-app --package com.example.app --key key.json --map current_version_android=versionName --map current_build_android=versionCode --condition android",
                "remote-config store-sync google-play run -p my-app"),
            subcommands: [Set.self, Show.self, Run.self])
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create or change the project's Google Play link (admin key); what is not given is kept.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(name: .customLong("package"), help: "The app's package name, such as com.example.app.")
        var packageName: String?

        @Option(name: .customLong("key"), help: "The service account's JSON key file from Google Cloud.")
        var keyFile: String?

        @Option(
            name: .customLong("map"),
            help: ArgumentHelp(
                "PARAMETER=FIELD, repeated: versionName, versionCode, inAppUpdatePriority, userFraction or releaseNotes.",
                valueName: "parameter=field"))
        var mappings: [String] = []

        @Option(help: "The track to read (default production).")
        var track: String?

        @Option(help: "The condition whose values receive the release's (\"\" for the default values).")
        var condition: String?

        @Option(help: "COMPLETED_ONLY (default) or ANY_LIVE (a staged rollout counts).")
        var stagedRollouts: String?

        @Option(help: "Seconds between syncs (60 to 2592000; default 3600).")
        var interval: Int?

        @Option(help: "Whether the server syncs the link by itself (true or false; default true).")
        var enabled: Bool?

        @Flag(
            inversion: .prefixedNo,
            help: "With approvals required, approve the sync's change request at once.")
        var autoApprove: Bool?

        func run() async throws {
            try await runAdmin {
                let client = try connection.client()
                let (current, etag) = try await client.googlePlayLink(project: project.project)
                guard case .object(var body) = try APIEncoder.encode(current) else {
                    throw CommandFailure(.unavailable, "the server's Google Play link is not a JSON object")
                }
                // The status members are the server's; only settings are sent.
                for member in [
                    "serviceAccount", "lastSyncTime", "liveRelease", "lastError", "consecutiveFailures",
                    "nextSyncTime", "updateTime",
                ] {
                    body[member] = nil
                }
                if current.packageName == nil { body["enabled"] = .bool(true) }
                if let packageName { body["packageName"] = .string(packageName) }
                guard body["packageName"] != .null else {
                    throw CommandFailure(.usage, "\(project.project) has no Google Play link yet: give --package")
                }
                if let keyFile {
                    let bytes = try TemplateFileIO.contents(keyFile)
                    guard let key = try? JSONValue(parsing: Data(bytes)), key.objectValue != nil else {
                        throw CommandFailure(
                            .usage,
                            "\(keyFile) is not a JSON key file (download one in Google Cloud: IAM, Service "
                                + "accounts, Keys, Add key, JSON)")
                    }
                    body["serviceAccountKey"] = key
                } else if current.serviceAccount == nil {
                    throw CommandFailure(.usage, "\(project.project) has no Google Play link yet: give --key key.json")
                }
                if !mappings.isEmpty { body["parameters"] = .object(try Self.parameters(mappings)) }
                if let track { body["track"] = .string(track) }
                if let condition { body["condition"] = condition.isEmpty ? .null : .string(condition) }
                if let stagedRollouts { body["stagedRollouts"] = .string(stagedRollouts.uppercased()) }
                if let interval { body["intervalSeconds"] = .number(String(interval)) }
                if let enabled { body["enabled"] = .bool(enabled) }
                if let autoApprove { body["autoApprove"] = .bool(autoApprove) }
                let saved = try await client.setGooglePlayLink(project: project.project, .object(body), etag: etag)
                if connection.json { return try Output.json(saved) }
                Output.note("Saved the Google Play link of \(project.project).")
                GooglePlayLinkText.print(saved, project: project.project)
            }
        }

        /// `a=versionName` pairs as the link's `parameters`, in order; exit 1 for one without `=`.
        static func parameters(_ pairs: [String]) throws -> JSONObject {
            var object = JSONObject()
            for pair in pairs {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                    throw CommandFailure(
                        .usage, "--map \(pair): write it as parameter=field, such as current_build_android=versionCode")
                }
                object[parts[0]] = .string(parts[1])
            }
            return object
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the project's Google Play link and how its syncs went (never its key).")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        func run() async throws {
            try await runAdmin {
                let (link, _) = try await connection.client().googlePlayLink(project: project.project)
                if connection.json { return try Output.json(link) }
                GooglePlayLinkText.print(link, project: project.project)
            }
        }
    }

    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sync the project's Google Play link now (editor key) and show what it did.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        func run() async throws {
            try await runAdmin {
                let link = try await connection.client().runGooglePlayLink(project: project.project)
                if connection.json { return try Output.json(link) }
                switch link.result {
                case "PUBLISHED": Output.line("Published version \(link.publishedVersionNumber ?? "?").")
                case "CHANGE_REQUEST": Output.line("Opened \(link.changeRequest ?? "a change request") for approval.")
                case "UNCHANGED": Output.line("Nothing changed: the parameters already hold the live release's values.")
                case "NOT_LIVE": Output.line("Nothing changed: the track has no live release.")
                default: Output.line("The sync failed; nothing changed.")
                }
                GooglePlayLinkText.print(link, project: project.project)
                if link.result == "FAILED" { throw ExitCode(ExitStatus.unavailable.rawValue) }
            }
        }
    }
}

/// A Google Play link as people read it: one setting a line.
enum GooglePlayLinkText {
    static func print(_ link: GooglePlayLink, project: String) {
        guard let packageName = link.packageName else {
            Output.line("\(project) has no Google Play link (set one with `store-sync google-play set`).")
            return
        }
        var table = Table("SETTING", "VALUE")
        table.add("package", packageName)
        let staged = link.stagedRollouts == "ANY_LIVE" ? "a staged rollout counts" : "completed releases only"
        table.add("track", "\(link.track) (\(staged))")
        if let account = link.serviceAccount {
            table.add("service account", "\(account.clientEmail) (key \(account.privateKeyId.prefix(8))…)")
        }
        table.add("condition", link.condition ?? "(none: the default values)")
        let parameters = link.parameters.targets.map { "\($0.parameter) ← \($0.field)" }
        table.add("parameters", parameters.isEmpty ? "(none)" : parameters.joined(separator: ", "))
        table.add("syncs", link.enabled ? "every \(link.intervalSeconds) s" : "switched off (only `run` syncs)")
        table.add("auto-approve", link.autoApprove ? "yes" : "no")
        if let release = link.liveRelease {
            var text = "\(release.name ?? "(unnamed)") (versionCode \(release.versionCode), \(release.status)"
            if let fraction = release.userFraction { text += ", \(Int((fraction * 100).rounded()))% of users" }
            table.add("live release", text + ")")
        } else {
            table.add("live release", "(not read yet)")
        }
        table.add("last sync", link.lastSyncTime.map(RFC3339.format) ?? "never")
        if link.consecutiveFailures > 0 { table.add("failures", "\(link.consecutiveFailures) in a row") }
        table.add("last error", link.lastError ?? "none")
        if let next = link.nextSyncTime { table.add("next sync", RFC3339.format(next)) }
        table.print()
    }
}
