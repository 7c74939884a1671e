import ArgumentParser
import Foundation
import MCP
import RemoteConfigAdminClient
import RemoteConfigMCP
import RemoteConfigServer

/// `remote-config mcp`: the assistants' MCP server over stdio (for desktop assistants), the same tools as the
/// server's `/mcp`, each an admin API call to `--server` with this command's key.
struct MCPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mcp",
        abstract: "Serve the Model Context Protocol over stdio, for a desktop assistant.",
        discussion: helpText(
            [
                "Reads JSON-RPC from standard input and answers on standard output, as an assistant that starts it expects. Each tool is one admin API call to --server with --token (RC_TOKEN, or the token `remote-config login` saved), so the key's role and projects hold. No tool publishes, approves, rolls back, deletes or reveals a secret: propose_change opens a change request."
            ],
            "remote-config mcp --server https://rc.example.com --token rc_viewer_…"))

    // The connection options of every admin command, without `--json`: the output is MCP's.
    @Option(help: "The server's URL (RC_SERVER; default http://127.0.0.1:8080).")
    var server: String?

    @Option(help: "The admin API key or personal token to act with (RC_TOKEN).")
    var token: String?

    func run() async throws {
        let connection = ConnectionOptions(server: server, token: token)
        let caller = HTTPAdminCaller(client: try connection.client(), inFlight: InFlightCalls())
        let server = await AssistantServer.make(version: ServerConfiguration.mcpServerVersion) { caller }
        do {
            try await server.start(transport: StdioTransport())
        } catch {
            throw fail("cannot read standard input: \(error)")
        }
        await server.waitUntilCompleted()
        // Standard input ended (`echo … | remote-config mcp`): the calls already read still get their answers.
        await caller.inFlight.drain(limit: .seconds(60))
    }
}

/// How many admin calls are under way, so the command answers what it read before it exits.
actor InFlightCalls {
    private var count = 0

    func begin() { count += 1 }
    func end() { count -= 1 }

    /// Returns once no call has been under way for two looks 200 ms apart (a tool's calls follow one another
    /// within microseconds), or after `limit`.
    func drain(limit: Duration) async {
        let deadline = ContinuousClock.now + limit
        var quiet = 0
        while quiet < 2, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(200))
            quiet = count == 0 ? quiet + 1 : 0
        }
    }
}

/// The admin API over HTTP (`AdminClient`), marked as an assistant's; a server that cannot be reached answers
/// as the API does when it is unavailable, so the assistant reads why as the tool's error.
struct HTTPAdminCaller: AdminCaller {
    let client: AdminClient
    let inFlight: InFlightCalls

    func send(_ call: AdminCall) async throws -> AdminAnswer {
        await inFlight.begin()
        defer { Task { await inFlight.end() } }
        var headers = [AdminVia.header: AdminVia.mcp]
        if let ifMatch = call.ifMatch { headers["If-Match"] = ifMatch }
        do {
            let answer = try await client.send(
                call.method, call.path, query: call.query.map { ($0.name, $0.value) }, body: call.body,
                headers: headers)
            return AdminAnswer(status: answer.status, body: answer.body)
        } catch let error as AdminClientError {
            let body: [String: [String: String]] = [
                "error": ["status": "UNAVAILABLE", "message": "\(error)"]
            ]
            return AdminAnswer(status: 503, body: Array((try? JSONEncoder().encode(body)) ?? Data()))
        }
    }
}
