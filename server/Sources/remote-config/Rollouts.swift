import ArgumentParser
import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient

/// `remote-config rollouts list|show|create|pause|resume|halt|complete`.
struct Rollouts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Give a parameter a new value for a growing share of apps, step by step (editor key).",
        discussion: helpText(
            [
                "The server publishes each step when the hold of the one before is over; see docs/api.md, Rollouts. ID is rollouts/<id> or <id>, as `list` shows it. A halt publishes at once and needs no approval."
            ],
            "remote-config rollouts create -p my-app --parameter new_checkout --value true --step 1:3600 --step 10:86400 --step 100",
            "remote-config rollouts list -p my-app --state RUNNING",
            "remote-config rollouts halt -p my-app rollouts/7"),
        subcommands: [List.self, Show.self, Create.self, Pause.self, Resume.self, Halt.self, Complete.self])

    /// Percentages as people read them: `1`, `0.5`.
    static func percent(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(value)
    }

    /// One line per rollout.
    static func table(_ rollouts: [Rollout]) -> Table {
        var table = Table("ROLLOUT", "STATE", "PARAMETER", "VALUE", "STEP", "PERCENT", "NEXT STEP")
        for rollout in rollouts {
            let step = rollout.currentStep >= 0 ? "\(rollout.currentStep + 1)/\(rollout.steps.count)" : "-"
            var state = rollout.state
            if let reason = rollout.pauseReason { state += " (\(reason))" }
            table.add(
                rollout.name, state, rollout.parameter, String(rollout.value.prefix(40)), step,
                percent(rollout.percent) + "%", rollout.nextStepTime ?? "")
        }
        return table
    }

    /// The rollout in JSON, or in lines for people.
    static func print(_ rollout: Rollout, json: Bool) throws {
        if json {
            return Output.raw(try SortedJSON.text(rollout))
        }
        table([rollout]).print()
        if let audience = rollout.audience { Output.line("Audience: \(audience)") }
        let plan = rollout.steps.map { step in
            percent(step.percent) + "%" + (step.holdSeconds.map { " for \($0) s" } ?? "")
        }
        Output.line("Steps: " + plan.joined(separator: ", "))
        for entry in rollout.history {
            Output.line(
                "  step \(entry.step + 1): \(percent(entry.percent))% in version \(entry.versionNumber) at \(entry.time)"
            )
        }
        if let version = rollout.endVersionNumber { Output.line("Ended by version \(version).") }
        if let request = rollout.changeRequest { Output.line("Carried by \(request).") }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the project's rollouts, newest first.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "Only rollouts in this state: PROPOSED, RUNNING, PAUSED, HALTED or COMPLETED.")
        var state: String?

        @Option(help: "Show at most this many rollouts (default: all).")
        var limit: Int?

        /// Rollouts per call: the server's maximum.
        static let pageSize = 300

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
        }

        func run() async throws {
            try await runAdmin {
                let client = try connection.client()
                var rollouts: [Rollout] = []
                var token: String?
                repeat {
                    let want = min(Self.pageSize, (limit ?? Int.max) - rollouts.count)
                    let page = try await client.listRollouts(
                        project: project.project, state: state?.uppercased(), pageSize: want, pageToken: token)
                    rollouts += page.rollouts
                    token = page.nextPageToken
                } while token != nil && rollouts.count < (limit ?? Int.max)
                if connection.json {
                    return Output.raw(try SortedJSON.text(RolloutList(rollouts: rollouts, nextPageToken: token)))
                }
                if rollouts.isEmpty { return Output.line("No rollouts in \(project.project).") }
                Rollouts.table(rollouts).print()
                if token != nil { Output.note("(more rollouts follow; raise --limit to see them)") }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one rollout and the steps it published.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption
        @Argument(help: "The rollout (rollouts/<id> or <id>).") var id: String

        func run() async throws {
            try await runAdmin {
                let rollout = try await connection.client().rollout(project: project.project, id: id)
                try Rollouts.print(rollout, json: connection.json)
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a rollout and publish its first step; its halt token is printed this once.")

        @OptionGroup var connection: ConnectionOptions
        @OptionGroup var project: ProjectOption

        @Option(help: "The parameter (it must be published).") var parameter: String
        @Option(help: "The new value, fitting the parameter's type.") var value: String
        @Option(help: "A condition expression: only the apps it selects may get the value.") var audience: String?

        @Option(
            name: .customLong("step"),
            help: "A step as PERCENT or PERCENT:HOLD_SECONDS (repeat it, percents increasing).")
        var steps: [String]

        @Option(help: "A note for people.") var description: String?

        func run() async throws {
            try await runAdmin {
                var plan: [RolloutStep] = []
                for text in steps {
                    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
                    guard (1...2).contains(parts.count), let percent = Double(parts[0]),
                        parts.count == 1 || Int64(parts[1]) != nil
                    else {
                        throw CommandFailure(.usage, "--step '\(text)': write PERCENT or PERCENT:HOLD_SECONDS")
                    }
                    plan.append(RolloutStep(percent: percent, holdSeconds: parts.count == 2 ? Int64(parts[1]) : nil))
                }
                let created = try await connection.client().createRollout(
                    project: project.project,
                    RolloutCreate(
                        parameter: parameter, value: value, audience: audience, steps: plan, description: description))
                if connection.json { return try Rollouts.print(created, json: true) }
                Output.note(
                    "Created \(created.name) (\(created.state)); condition \(created.conditionName). Its halt token, shown this once (POST /v1/rollouts/\(created.name.dropFirst("rollouts/".count)):halt with Authorization: Bearer <token>):"
                )
                Output.line(created.haltToken ?? "")
            }
        }
    }

    struct Pause: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the clock: no further step until resumed.")
        @OptionGroup var action: RolloutAction
        func run() async throws { try await action.run("pause") }
    }

    struct Resume: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start the clock again.")
        @OptionGroup var action: RolloutAction
        func run() async throws { try await action.run("resume") }
    }

    struct Halt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish the template without the rollout: every app gets the value it had before.")
        @OptionGroup var action: RolloutAction
        func run() async throws { try await action.run("halt") }
    }

    struct Complete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Publish the value as the parameter's default for everyone and remove the rollout (while the project requires approval: open a change request that does)."
        )
        @OptionGroup var action: RolloutAction
        func run() async throws { try await action.run("complete") }
    }
}
