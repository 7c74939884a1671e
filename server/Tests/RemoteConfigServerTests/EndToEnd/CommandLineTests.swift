import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// The built binary as the admin client of a real server (itself the built binary), as a team keeping its
/// template in git and publishing it from CI uses it.
@Suite(.serialized) struct CommandLineTests {
    static let token = "rc_admin_commandLineTests0000000000000"

    static func version(_ template: JSONValue) -> String? {
        template["version"]?["versionNumber"]?.stringValue
    }

    static func expectOK(_ run: CommandLineRun, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == 0, "\(run)", sourceLocation: sourceLocation)
    }

    @Test func templatesAsCodeRoundTrip() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.stop() } }

        // A project and a client key for the app.
        var run = try await fixture.cli("projects", "create", "shop-app", "--name", "Shop")
        Self.expectOK(run)
        #expect(run.stdout == "Created project shop-app (Shop).\n")
        run = try await fixture.cli("projects", "list")
        Self.expectOK(run)
        #expect(run.stdout.hasPrefix("PROJECT   NAME  CREATED\nshop-app  Shop  "), "\(run)")
        run = try await fixture.cli(
            "keys", "create", "--role", "client", "--project", "shop-app", "--name", "iOS", "--json")
        Self.expectOK(run)
        let created = try run.decode(APIKey.self)
        let clientKey = try #require(created.key)
        let keyName = created.name
        run = try await fixture.cli("keys", "list")
        Self.expectOK(run)
        #expect(run.stdout.contains(keyName) && run.stdout.contains("client") && !run.stdout.contains(clientKey))

        // The empty template, pulled into a file, edited and checked.
        run = try await fixture.cli("template", "get", "-p", "shop-app", "-o", fixture.path("config.json"))
        Self.expectOK(run)
        #expect(run.stderr.contains("the empty template"))
        var file = try #require(try fixture.readJSON("config.json").objectValue)
        #expect(file["version"] == nil && file["parameters"] == [:])
        file["conditions"] = [["name": "ios", "expression": "device.os == 'ios'"]]
        file["parameters"] = [
            "max_items": [
                "defaultValue": ["value": "10"], "valueType": "NUMBER", "conditionalValues": ["ios": ["value": "12"]],
            ],
            "welcome": ["defaultValue": ["value": "Hello"], "valueType": "STRING"],
        ]
        try fixture.writeJSON(.object(file), "config.json")
        run = try await fixture.cli("template", "validate", "-p", "shop-app", fixture.path("config.json"))
        Self.expectOK(run)
        #expect(run.stdout.contains("is a valid template for shop-app"), "\(run)")
        #expect(run.stdout.contains("+ max_items: NUMBER, default \"10\", if ios \"12\""), "\(run)")
        #expect(run.stdout.contains("+ ios: device.os == 'ios'"), "\(run)")

        // The first publish: the file records version 1; the version says it came from the command line.
        run = try await fixture.cli(
            "template", "publish", "-p", "shop-app", fixture.path("config.json"), "--description", "First")
        Self.expectOK(run)
        #expect(run.stdout.contains("Published shop-app version 1"), "\(run)")
        #expect(Self.version(try fixture.readJSON("config.json")) == "1")
        let first = try await fixture.published("shop-app")["version"]
        #expect(first?["updateOrigin"] == "CLI")
        #expect(first?["description"] == "First")

        // An edit: a changed default, a removed parameter, an added one, a changed condition.
        file = try #require(try fixture.readJSON("config.json").objectValue)
        var parameters = file["parameters"]?.objectValue ?? [:]
        parameters["max_items"] = [
            "defaultValue": ["value": "20"], "valueType": "NUMBER", "conditionalValues": ["ios": ["value": "12"]],
        ]
        parameters["welcome"] = nil
        parameters["dark_mode"] = ["defaultValue": ["value": "true"], "valueType": "BOOLEAN"]
        file["parameters"] = .object(parameters)
        file["conditions"] = [["name": "ios", "expression": "device.os == 'ios' && app.version.>=(['2.0.0'])"]]
        try fixture.writeJSON(.object(file), "config.json")
        run = try await fixture.cli("template", "diff", "-p", "shop-app", "--from", "1", fixture.path("config.json"))
        Self.expectOK(run)
        let expectedDiff = """
            Parameters:
              + dark_mode: BOOLEAN, default "true"
              - welcome: STRING, default "Hello"
              ~ max_items
                  defaultValue: "10" → "20"
            Conditions:
              ~ ios
                  expression: device.os == 'ios' → device.os == 'ios' && app.version.>=(['2.0.0'])
            """
        #expect(run.stdout.contains(expectedDiff), "\(run)")
        run = try await fixture.cli("template", "publish", "-p", "shop-app", fixture.path("config.json"))
        Self.expectOK(run)
        #expect(run.stdout.contains("Published shop-app version 2 over version 1"), "\(run)")

        // The same diff from the server's history; the versions; a rollback.
        run = try await fixture.cli("template", "diff", "-p", "shop-app", "--from", "1", "--to", "2")
        Self.expectOK(run)
        #expect(run.stdout.contains(expectedDiff), "\(run)")
        run = try await fixture.cli("template", "diff", "-p", "shop-app", "--from", "1", "--json")
        Self.expectOK(run)
        #expect(run.value["to"] == "2")
        run = try await fixture.cli("template", "rollback", "-p", "shop-app", "1")
        Self.expectOK(run)
        #expect(run.stdout == "Rolled shop-app back to version 1: published as version 3.\n", "\(run)")
        run = try await fixture.cli("template", "versions", "-p", "shop-app")
        Self.expectOK(run)
        let rows = run.stdout.split(separator: "\n")
        #expect(rows.count == 4, "\(run)")
        #expect(rows.first?.hasPrefix("VERSION  PUBLISHED") == true, "\(run)")
        #expect(rows[1].hasPrefix("3 ") && rows[1].contains("CLI") && rows[1].contains("ROLLBACK of 1"), "\(run)")
        #expect(rows[3].hasPrefix("1 ") && rows[3].contains("CLI") && rows[3].contains("First"), "\(run)")
        #expect(run.stderr.isEmpty, "no progress lines when stderr is not a terminal: \(run)")

        // Defaults as a property list, a preview, and one value set from CI.
        run = try await fixture.cli("template", "defaults", "-p", "shop-app", "--format", "plist")
        Self.expectOK(run)
        #expect(run.stdout.hasPrefix("<?xml"), "\(run)")
        #expect(run.stdout.contains("<key>max_items</key>") && run.stdout.contains("<string>10</string>"), "\(run)")
        // Into a folder that does not exist yet, as the README's `-o App/RemoteConfigDefaults.plist` in a fresh clone.
        let nested = fixture.path("App/Resources/RemoteConfigDefaults.plist")
        run = try await fixture.cli("template", "defaults", "-p", "shop-app", "--format", "plist", "-o", nested)
        Self.expectOK(run)
        #expect(try String(contentsOfFile: nested, encoding: .utf8).contains("<key>max_items</key>"), "\(run)")
        run = try await fixture.cli(
            "template", "preview", "-p", "shop-app", "--context", #"{"platform": "IOS", "appVersion": "1.0"}"#)
        Self.expectOK(run)
        #expect(run.stdout.contains("State UPDATE, template version 3."), "\(run)")
        #expect(run.stdout.contains("max_items  12     CONDITION  ios"), "\(run)")
        run = try await fixture.cli("template", "set", "-p", "shop-app", "max_items", "30", "--description", "CI")
        Self.expectOK(run)
        #expect(run.stdout == "Set max_items to 30: published shop-app version 4.\n", "\(run)")

        // What an app fetches with the client key created above.
        let fetched = try await HTTP.request(
            "POST", fixture.base + "/v1/projects/shop-app/remoteConfig:fetch", headers: ["X-API-Key": clientKey],
            body: HTTP.json(["appInstanceId": "device-1", "platform": "ANDROID"]))
        #expect(fetched.value["entries"]?["max_items"] == "30")

        run = try await fixture.cli("keys", "revoke", keyName)
        Self.expectOK(run)
        #expect(run.stdout == "Revoked \(keyName).\n")
    }

    @Test func aFilePulledBeforeAnotherPublishIsRefused() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.stop() } }
        Self.expectOK(try await fixture.cli("projects", "create", "shop-app"))
        try fixture.writeJSON(["parameters": ["a": ["defaultValue": ["value": "1"]]]], "seed.json")
        Self.expectOK(try await fixture.cli("template", "publish", "-p", "shop-app", fixture.path("seed.json")))

        // A file without a version publishes only onto an empty project.
        try fixture.writeJSON(["parameters": ["b": ["defaultValue": ["value": "2"]]]], "unversioned.json")
        var run = try await fixture.cli("template", "publish", "-p", "shop-app", fixture.path("unversioned.json"))
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains("has no version, but shop-app already has version 1"), "\(run)")

        // Two people pull version 1; the first publishes, the second is refused and nothing changes.
        for name in ["alice.json", "bob.json"] {
            Self.expectOK(try await fixture.cli("template", "get", "-p", "shop-app", "-o", fixture.path(name)))
        }
        var alice = try #require(try fixture.readJSON("alice.json").objectValue)
        alice["parameters"] = ["a": ["defaultValue": ["value": "alice"]]]
        try fixture.writeJSON(.object(alice), "alice.json")
        var bob = try #require(try fixture.readJSON("bob.json").objectValue)
        bob["parameters"] = ["a": ["defaultValue": ["value": "bob"]]]
        try fixture.writeJSON(.object(bob), "bob.json")
        Self.expectOK(try await fixture.cli("template", "publish", "-p", "shop-app", fixture.path("alice.json")))
        run = try await fixture.cli("template", "publish", "-p", "shop-app", fixture.path("bob.json"))
        #expect(run.status == 3, "\(run)")
        #expect(
            run.stderr.contains("shop-app is at version 2, but \(fixture.path("bob.json")) was pulled at version 1"),
            "\(run)")
        #expect(run.stderr.contains("template diff -p shop-app --from 1 --to 2"), "\(run)")
        #expect(Self.version(try await fixture.published("shop-app")) == "2")
        #expect(Self.version(try fixture.readJSON("bob.json")) == "1", "a refused publish leaves the file alone")

        // validate says so too, without failing; --force publishes over it.
        run = try await fixture.cli("template", "validate", "-p", "shop-app", fixture.path("bob.json"))
        Self.expectOK(run)
        #expect(run.stderr.contains("was pulled at version 1"), "\(run)")
        #expect(run.stdout.contains("defaultValue: \"alice\" → \"bob\""), "\(run)")
        run = try await fixture.cli("template", "publish", "-p", "shop-app", fixture.path("bob.json"), "--force")
        Self.expectOK(run)
        let forced = try await fixture.published("shop-app")["version"]
        #expect(forced?["versionNumber"] == "3")
        #expect(forced?["updateType"] == "FORCED_UPDATE")
    }

    /// Many publishes of files pulled at the same version, at once: the ETag lets exactly one through, even
    /// when several pass the version check before any of them publishes.
    @Test func concurrentPublishesNeverOverwriteEachOther() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.stop() } }
        Self.expectOK(try await fixture.cli("projects", "create", "shop-app"))
        Self.expectOK(try await fixture.cli("template", "get", "-p", "shop-app", "-o", fixture.path("pulled.json")))
        let count = 6
        for index in 0..<count {
            var file = try #require(try fixture.readJSON("pulled.json").objectValue)
            file["parameters"] = ["who": ["defaultValue": ["value": "publisher \(index)"]]]
            try fixture.writeJSON(.object(file), "file\(index).json")
        }
        let runs = try await withThrowingTaskGroup(of: CommandLineRun.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await fixture.cli("template", "publish", "-p", "shop-app", fixture.path("file\(index).json"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.filter { $0.status == 0 }.count == 1, "\(runs)\n--- server\n\(fixture.server.output)")
        #expect(runs.filter { $0.status == 3 }.count == count - 1, "\(runs)")
        #expect(Self.version(try await fixture.published("shop-app")) == "1")
    }

    @Test func everyExitStatus() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.stop() } }
        Self.expectOK(try await fixture.cli("projects", "create", "shop-app"))

        // 1: wrong usage (a missing option, an unknown flag, a file that is not there).
        var run = try await fixture.cli("template", "get")
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr.contains("Missing expected argument '--project <project>'"), "\(run)")
        run = try await fixture.cli("projects", "list", "--colour")
        #expect(run.status == 1, "\(run)")
        run = try await fixture.cli("template", "publish", "-p", "shop-app", fixture.path("missing.json"))
        #expect(run.status == 1, "\(run)")
        #expect(run.stderr == "remote-config: error: \(fixture.path("missing.json")) does not exist\n", "\(run)")

        // 2: an invalid template, read as sentences with the field at fault; an invalid request; not JSON.
        try fixture.writeJSON(
            ["parameters": ["max_items": ["defaultValue": ["value": "many"], "valueType": "NUMBER"]]], "bad.json")
        for command in ["validate", "publish"] {
            run = try await fixture.cli("template", command, "-p", "shop-app", fixture.path("bad.json"))
            #expect(run.status == 2, "\(run)")
            #expect(run.stderr.hasPrefix("remote-config: error: the template is not valid: "), "\(run)")
            #expect(run.stderr.contains("\n  parameters.max_items.defaultValue.value: "), "\(run)")
            #expect(run.stderr.contains("(PARAM_VALUE_TYPE_MISMATCH)"), "\(run)")
            #expect(!run.stderr.contains("{"), "no raw JSON: \(run)")
        }
        #expect(Self.version(try await fixture.published("shop-app")) == nil)
        run = try await fixture.cli("projects", "create", "Shop_App")
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.contains("projectId: "), "\(run)")
        try Data("{\"parameters\": {\n  \"a\": }".utf8).write(to: URL(fileURLWithPath: fixture.path("broken.json")))
        run = try await fixture.cli("template", "validate", "-p", "shop-app", fixture.path("broken.json"))
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.contains("is not valid JSON") && run.stderr.contains("(line 2, column"), "\(run)")

        // 3: a conflict.
        run = try await fixture.cli("projects", "create", "shop-app")
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr.contains("shop-app"), "\(run)")

        // 4: a key that does not exist; a key whose role does not allow it.
        run = try await fixture.cli("projects", "list", token: "rc_admin_notAKey000000000000000000000")
        #expect(run.status == 4, "\(run)")
        #expect(run.stderr.contains("RC_TOKEN"), "\(run)")
        run = try await fixture.cli("keys", "create", "--role", "viewer", "--project", "shop-app", "--json")
        let viewer = try #require(try run.decode(APIKey.self).key)
        try fixture.writeJSON(["parameters": [:]], "empty.json")
        run = try await fixture.cli("template", "publish", "-p", "shop-app", fixture.path("empty.json"), token: viewer)
        #expect(run.status == 4, "\(run)")

        // 4 too: a project that publishes only through approved change requests says so.
        let settings = try await HTTP.request(
            "PATCH", fixture.base + "/v1/projects/shop-app", headers: ["Authorization": "Bearer \(Self.token)"],
            body: try HTTP.encoded(UpdateProjectRequest(requireApproval: true)))
        #expect(settings.status == 200)
        run = try await fixture.cli("template", "publish", "-p", "shop-app", fixture.path("empty.json"))
        #expect(run.status == 4, "\(run)")
        #expect(
            run.stderr.contains("requires approval") && run.stderr.contains("remote-config changes create"), "\(run)")

        // 5: nothing listens there; the message names the server tried.
        let closed = Self.closedPort()
        run = try await CommandLineRun.run(
            ["projects", "list", "--server", "http://127.0.0.1:\(closed)"], environment: ["RC_TOKEN": Self.token])
        #expect(run.status == 5, "\(run)")
        #expect(
            run.stderr
                == "remote-config: error: cannot reach the server at http://127.0.0.1:\(closed): connection refused\n",
            "\(run)")

        // 6: no such project, version or key.
        run = try await fixture.cli("template", "get", "-p", "no-such-app")
        #expect(run.status == 6, "\(run)")
        #expect(run.stderr == "remote-config: error: project no-such-app not found\n", "\(run)")
        run = try await fixture.cli("template", "rollback", "-p", "shop-app", "9")
        #expect(run.status == 6, "\(run)")
        run = try await fixture.cli("keys", "revoke", "apiKeys/nothing")
        #expect(run.status == 6, "\(run)")
    }

    /// The server runs but its database is gone: 503, which a CI step reads as "server down" (5), as it reads
    /// a refused connection.
    @Test func aServerWithoutItsDatabaseExitsFive() async throws {
        let cluster = try await PrivateCluster.start()
        defer { cluster.destroy() }
        let server = try ServerProcess(
            ["serve", "--port", "0", "--database-url", ServeCommandTests.urlText(cluster.url)],
            environment: ["RC_ADMIN_TOKEN": Self.token])
        let port = try await server.waitUntilListening()
        let environment = ["RC_SERVER": "http://127.0.0.1:\(port)", "RC_TOKEN": Self.token]
        Self.expectOK(try await CommandLineRun.run(["projects", "create", "shop-app"], environment: environment))
        cluster.embedded.stopImmediately()
        let run = try await CommandLineRun.run(["template", "versions", "-p", "shop-app"], environment: environment)
        #expect(run.status == 5, "\(run)")
        #expect(run.stderr.hasPrefix("remote-config: error: "), "\(run)")
        #expect(run.stderr.contains("try again shortly"), "\(run)")
        await server.stop()
    }

    @Test func longWalksShowProgressOnATerminal() async throws {
        let fixture = try await Fixture()
        defer { Task { await fixture.stop() } }
        Self.expectOK(try await fixture.cli("projects", "create", "shop-app"))
        // More versions than one page holds (300).
        for index in 1...302 {
            let reply = try await HTTP.request(
                "PUT", fixture.base + "/v1/projects/shop-app/remoteConfig",
                headers: ["Authorization": "Bearer \(Self.token)", "If-Match": "*"],
                body: HTTP.json(["parameters": ["n": ["defaultValue": ["value": "\(index)"]]]]))
            #expect(reply.status == 200)
        }
        let run = try await fixture.cli(
            "template", "versions", "-p", "shop-app", environment: ["RC_PROGRESS": "1"])
        Self.expectOK(run)
        #expect(run.stdout.split(separator: "\n").count == 303, "a header and every version")
        #expect(run.stderr.contains("reading versions of shop-app: 300 so far (page 1)…"), "\(run.stderr)")
        // On a real terminal (util-linux `script` gives the command a pseudo-terminal) without RC_PROGRESS.
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/script") {
            let transcript = fixture.path("typescript")
            let command = "\(ServerProcess.executable) template versions -p shop-app > \(fixture.path("versions.txt"))"
            let script = try await CommandLineRun.run(
                ["-qec", command, transcript], environment: ["RC_SERVER": fixture.base, "RC_TOKEN": Self.token],
                executable: "/usr/bin/script")
            Self.expectOK(script)
            let terminal = try String(contentsOfFile: transcript, encoding: .utf8)
            #expect(terminal.contains("reading versions of shop-app: 300 so far (page 1)…"), "\(terminal)")
            let listed = try String(contentsOfFile: fixture.path("versions.txt"), encoding: .utf8)
            #expect(listed.split(separator: "\n").count == 303)
        }
        let limited = try await fixture.cli("template", "versions", "-p", "shop-app", "--limit", "5", "--json")
        Self.expectOK(limited)
        #expect(limited.value["versions"]?.arrayValue?.count == 5)
        #expect(limited.value["nextPageToken"] == "298")
    }

    @Test func everyCommandsHelpHasAnExample() async throws {
        let commands = [
            [], ["serve"], ["migrate"], ["projects"], ["projects", "list"], ["projects", "create"], ["keys"],
            ["keys", "list"],
            ["keys", "create"], ["keys", "revoke"], ["template"], ["template", "get"], ["template", "validate"],
            ["template", "publish"], ["template", "versions"], ["template", "diff"], ["template", "rollback"],
            ["template", "defaults"], ["template", "preview"], ["template", "set"], ["template", "impact"], ["changes"],
            ["changes", "list"],
            ["changes", "show"], ["changes", "create"], ["changes", "approve"], ["changes", "reject"],
            ["changes", "cancel"], ["changes", "publish"],
        ]
        for command in commands {
            let run = try await CommandLineRun.run(command + ["--help"])
            #expect(run.status == 0, "\(run)")
            #expect(run.stdout.contains("Example:\n  remote-config "), "\(run)")
            // Each example is one command on one line, not wrapped where a reader would copy half of it.
            let examples = run.stdout.components(separatedBy: "Example:\n").last?.components(separatedBy: "\n\n").first
            for line in (examples ?? "").split(separator: "\n") {
                #expect(line.hasPrefix("  remote-config "), "wrapped example in \(command): \(line)")
            }
        }
    }
}
