import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// `remote-config changes …`, the built binary against a real server: a team whose publishes need a second
/// person's approval proposes its template file, reviews and publishes it from the command line.
@Suite(.serialized) struct CommandLineChangesTests {
    typealias Fixture = CommandLineTests.Fixture

    static func expectOK(_ run: CommandLineRun, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "\(run)", sourceLocation: sourceLocation)
    }

    /// A project `shop-app` with approval `required` or not, and the secret of a second (editor) key "Alice".
    static func project(_ fixture: Fixture, requireApproval: Bool) async throws -> String {
        expectOK(try await fixture.cli("projects", "create", "shop-app"))
        let reply = try await HTTP.request(
            "PATCH", fixture.base + "/v1/projects/shop-app",
            headers: ["Authorization": "Bearer \(CommandLineTests.token)"],
            body: try HTTP.encoded(UpdateProjectRequest(requireApproval: requireApproval)))
        #expect(reply.status == 200)
        let run = try await fixture.cli(
            "keys", "create", "--role", "editor", "--project", "shop-app", "--name", "Alice", "--json")
        expectOK(run)
        return try #require(try run.decode(APIKey.self).key)
    }

    /// An editor key that opens change requests: a sibling of Alice's, made by the same admin token, since a key
    /// counts as the identity of the key that made it (the admin token could not approve what a key it made
    /// proposes, nor the reverse).
    static func author(_ fixture: Fixture) async throws -> String {
        let run = try await fixture.cli(
            "keys", "create", "--role", "editor", "--project", "shop-app", "--name", "CI", "--json")
        expectOK(run)
        return try #require(try run.decode(APIKey.self).key)
    }

    static var config: JSONValue {
        [
            "conditions": [["name": "ios", "expression": "device.os == 'ios'"]],
            "parameters": [
                "max_items": [
                    "defaultValue": ["value": "10"], "valueType": "NUMBER",
                    "conditionalValues": ["ios": ["value": "12"]],
                ],
                "welcome": ["defaultValue": ["value": "Hello"], "valueType": "STRING"],
            ],
        ]
    }

    @Test func aSecondKeyApprovesAndTheRequestIsPublished() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.stop() } }
        let alice = try await Self.project(fixture, requireApproval: true)
        let ci = try await Self.author(fixture)
        try fixture.writeJSON(Self.config, "config.json")
        let file = fixture.path("config.json")

        // A plain publish is refused, and the sentence says what to do instead.
        var run = try await fixture.cli("template", "publish", "-p", "shop-app", file)
        #expect(run.status == 4, "\(run)")
        #expect(run.stderr.contains("shop-app requires approval, so nothing was published"), "\(run)")
        #expect(run.stderr.contains("`remote-config changes create -p shop-app \(file) --description TEXT`"), "\(run)")
        #expect(CommandLineTests.version(try await fixture.published("shop-app")) == nil)

        run = try await fixture.cli(
            "changes", "create", "-p", "shop-app", file, "--description", "First config", token: ci)
        Self.expectOK(run)
        #expect(run.stdout == "Opened change request 1 of shop-app: it is OPEN.\n", "\(run)")
        #expect(run.stderr.contains("remote-config changes approve -p shop-app 1"), "\(run)")

        // Its author cannot approve it, and it cannot be published before someone else does.
        run = try await fixture.cli("changes", "approve", "-p", "shop-app", "1", token: ci)
        #expect(run.status == 4, "\(run)")
        #expect(run.stderr.contains("the author of change request 1 cannot approve it"), "\(run)")
        #expect(!run.stderr.contains("role"), "not a question of the key's role: \(run)")
        run = try await fixture.cli("changes", "publish", "-p", "shop-app", "1")
        #expect(run.status == 4, "\(run)")
        #expect(run.stderr.contains("has 0 of the 1 approvals"), "\(run)")

        run = try await fixture.cli(
            "changes", "approve", "-p", "shop-app", "changeRequests/1", "--comment", "Looks right", token: alice)
        Self.expectOK(run)
        #expect(run.stdout == "Approved change request 1 of shop-app: it is APPROVED.\n", "\(run)")

        run = try await fixture.cli("changes", "list", "-p", "shop-app")
        Self.expectOK(run)
        let rows = run.stdout.split(separator: "\n")
        #expect(rows.count == 2, "\(run)")
        #expect(
            rows.first
                == "ID  STATE     CREATED                   AUTHOR  APPROVALS  PUBLISH TIME  VERSION  DESCRIPTION",
            "\(run)")
        #expect(rows.last?.hasPrefix("1   APPROVED  20") == true, "\(run)")
        #expect(rows.last?.hasSuffix("Z  CI      1                                 First config") == true, "\(run)")

        run = try await fixture.cli("changes", "show", "-p", "shop-app", "1")
        Self.expectOK(run)
        for line in [
            "Change request 1 of shop-app\n", "  State:        APPROVED\n", "  Description:  First config\n",
            "  Base version: 0\n", "  Publish time: (none: published by `changes publish`)\n",
            "  Approvals:    1 of 1 required\n    Alice (apiKeys/",
            "Against the empty template (nothing published yet):\nParameters:\n"
                + "  + max_items: NUMBER, default \"10\", if ios \"12\"\n",
            "Conditions:\n  + ios: device.os == 'ios'\n",
        ] {
            #expect(run.stdout.contains(line), "\(line) in \(run)")
        }
        #expect(run.stdout.contains(#": "Looks right""#), "\(run)")

        run = try await fixture.cli("changes", "publish", "-p", "shop-app", "1")
        Self.expectOK(run)
        #expect(run.stdout == "Published change request 1 of shop-app as version 1.\n", "\(run)")
        let version = try await fixture.published("shop-app")["version"]
        #expect(version?["versionNumber"] == "1")
        #expect(version?["updateOrigin"] == "CHANGE_REQUEST")
        #expect(version?["description"] == "First config")

        // Once published, `show` says what its publish changed rather than "no changes" against itself.
        run = try await fixture.cli("changes", "show", "-p", "shop-app", "1")
        Self.expectOK(run)
        #expect(run.stdout.contains("  Published as: version 1\n"), "\(run)")
        #expect(run.stdout.contains("What publishing it changed (version 0 → 1):\nParameters:\n"), "\(run)")

        // --json prints the API's objects.
        run = try await fixture.cli("changes", "show", "-p", "shop-app", "1", "--json")
        Self.expectOK(run)
        let shown = try run.decode(ChangeRequest.self)
        #expect(shown.state == "PUBLISHED" && shown.publishedVersionNumber == "1")
        #expect(shown.approvals.first?.comment == "Looks right")
        #expect(shown.diff?.objectValue != nil && shown.template?.objectValue != nil, "\(run)")
        run = try await fixture.cli("changes", "list", "-p", "shop-app", "--state", "published", "--json")
        Self.expectOK(run)
        #expect(try run.decode(ChangeRequestList.self).changeRequests.map(\.name) == ["changeRequests/1"])
        run = try await fixture.cli("changes", "list", "-p", "shop-app", "--state", "open")
        Self.expectOK(run)
        #expect(run.stdout == "No OPEN change requests in shop-app.\n", "\(run)")

        // A published request can no longer be approved: a conflict.
        run = try await fixture.cli("changes", "approve", "-p", "shop-app", "1", "--json")
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains("change request 1 is PUBLISHED"), "\(run)")
    }

    @Test func aRequestWithATimeIsPublishedByTheServer() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.stop() } }
        let alice = try await Self.project(fixture, requireApproval: true)
        let ci = try await Self.author(fixture)
        try fixture.writeJSON(Self.config, "config.json")
        let at = Date.ISO8601FormatStyle().format(Date().addingTimeInterval(3))
        var run = try await fixture.cli(
            "changes", "create", "-p", "shop-app", fixture.path("config.json"), "--description", "Release day",
            "--at", at, "--json", token: ci)
        Self.expectOK(run)
        let created = try run.decode(ChangeRequest.self)
        #expect(created.state == "OPEN" && created.publishTime != nil, "\(run)")
        run = try await fixture.cli("changes", "approve", "-p", "shop-app", "1", token: alice)
        Self.expectOK(run)
        #expect(run.stdout.hasPrefix("Approved change request 1 of shop-app: it is SCHEDULED for "), "\(run)")

        let published = try await Workflow.eventually(.seconds(20)) {
            CommandLineTests.version(try await fixture.published("shop-app")) == "1"
        }
        #expect(published, "\(fixture.server.output)")
        #expect(try await fixture.published("shop-app")["version"]?["updateOrigin"] == "CHANGE_REQUEST")
        run = try await fixture.cli("changes", "show", "-p", "shop-app", "1")
        Self.expectOK(run)
        #expect(run.stdout.contains("  State:        PUBLISHED\n"), "\(run)")
        #expect(run.stdout.contains("  Published as: version 1\n"), "\(run)")
    }

    @Test func conflictsRefusalsAndMistakesHaveTheirExitStatus() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.stop() } }
        let alice = try await Self.project(fixture, requireApproval: false)
        try fixture.writeJSON(Self.config, "config.json")
        let file = fixture.path("config.json")

        // Two requests on the same base; without approval required an open one is published directly.
        for description in ["one", "two"] {
            Self.expectOK(
                try await fixture.cli("changes", "create", "-p", "shop-app", file, "--description", description))
        }
        Self.expectOK(try await fixture.cli("changes", "publish", "-p", "shop-app", "1"))
        var run = try await fixture.cli("changes", "show", "-p", "shop-app", "2")
        Self.expectOK(run)
        #expect(run.stdout.contains("published after its base version 0"), "\(run)")
        run = try await fixture.cli("changes", "publish", "-p", "shop-app", "2")
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains("or publish it with --force"), "\(run)")
        run = try await fixture.cli("changes", "publish", "-p", "shop-app", "2", "--force")
        Self.expectOK(run)
        #expect(run.stdout == "Published change request 2 of shop-app as version 2.\n", "\(run)")

        // A file pulled at an older version is refused as `template publish` refuses it.
        run = try await fixture.cli("changes", "create", "-p", "shop-app", file, "--description", "stale")
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains("has no version, but shop-app already has version 2"), "\(run)")
        #expect(run.stderr.contains("propose it with --force"), "\(run)")
        Self.expectOK(try await fixture.cli("template", "get", "-p", "shop-app", "-o", file))

        // Reject, cancel; only the author (or an admin) cancels.
        Self.expectOK(try await fixture.cli("changes", "create", "-p", "shop-app", file, "--description", "three"))
        run = try await fixture.cli("changes", "reject", "-p", "shop-app", "3", "--comment", "Not now", token: alice)
        Self.expectOK(run)
        #expect(run.stdout == "Rejected change request 3 of shop-app: it is REJECTED.\n", "\(run)")
        run = try await fixture.cli("changes", "show", "-p", "shop-app", "3")
        #expect(
            run.stdout.contains("  Rejected by:  Alice (apiKeys/") && run.stdout.contains(#": "Not now""#), "\(run)")
        Self.expectOK(
            try await fixture.cli("changes", "create", "-p", "shop-app", file, "--description", "four", token: alice))
        run = try await fixture.cli("changes", "cancel", "-p", "shop-app", "4")
        Self.expectOK(run)
        #expect(run.stdout == "Cancelled change request 4 of shop-app: it is CANCELLED.\n", "\(run)")

        // 2: an invalid template, with the field at fault.
        var bad = try #require(try fixture.readJSON("config.json").objectValue)
        bad["parameters"] = ["max_items": ["defaultValue": ["value": "many"], "valueType": "NUMBER"]]
        try fixture.writeJSON(.object(bad), "bad.json")
        run = try await fixture.cli(
            "changes", "create", "-p", "shop-app", fixture.path("bad.json"), "--description", "x")
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.contains("template.parameters.max_items.defaultValue.value"), "\(run)")

        // 1: wrong usage; 6: not found; 4: a viewer may read but not approve.
        run = try await fixture.cli("changes", "create", "-p", "shop-app", file, "--description", "x", "--at", "soon")
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("--at must be an RFC 3339 time"), "\(run)")
        run = try await fixture.cli("changes", "create", "-p", "shop-app", file)
        #expect(run.status == 1, "\(run)")
        run = try await fixture.cli("changes", "list", "-p", "shop-app", "--state", "merged")
        #expect(run.status == 1, "\(run)")
        run = try await fixture.cli("changes", "show", "-p", "shop-app", "99")
        #expect(run.status == 6, "\(run)")
        #expect(run.stderr == "remote-config: error: change request 99 of shop-app not found\n", "\(run)")
        run = try await fixture.cli("changes", "list", "-p", "no-such-app")
        #expect(run.status == 6, "\(run)")
        run = try await fixture.cli("keys", "create", "--role", "viewer", "--project", "shop-app", "--json")
        let viewer = try #require(try run.decode(APIKey.self).key)
        Self.expectOK(try await fixture.cli("changes", "list", "-p", "shop-app", token: viewer))
        Self.expectOK(try await fixture.cli("changes", "create", "-p", "shop-app", file, "--description", "five"))
        run = try await fixture.cli("changes", "approve", "-p", "shop-app", "5", token: viewer)
        #expect(run.status == 4, "\(run)")
        #expect(run.stderr.contains("role"), "\(run)")

        // A scheduled request whose base moved: `show` says the server still publishes it (a scheduled publish
        // is forced), and cancelling it is the way out.
        run = try await fixture.cli(
            "changes", "create", "-p", "shop-app", file, "--description", "later", "--at", "2099-01-01T00:00:00Z")
        Self.expectOK(run)
        #expect(run.stdout == "Opened change request 6 of shop-app: it is SCHEDULED for 2099-01-01T00:00:00.000Z.\n")
        Self.expectOK(try await fixture.cli("changes", "publish", "-p", "shop-app", "5"))
        run = try await fixture.cli("changes", "show", "-p", "shop-app", "6")
        #expect(run.stdout.contains("published after its base version 2: the server still publishes it"), "\(run)")
        Self.expectOK(try await fixture.cli("changes", "cancel", "-p", "shop-app", "6"))
    }
}
