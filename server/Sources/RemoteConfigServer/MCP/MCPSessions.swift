import Foundation
import Logging
import MCP
import NIOConcurrencyHelpers
import NIOCore
import RemoteConfigCore
import RemoteConfigMCP

/// The inbound `/mcp` request a tool call came with: its connection (an impact estimate stops when the client
/// hangs up), its credentials and its request id.
struct MCPInboundCall: Sendable {
    let channel: any Channel
    let logger: Logger
    let authorization: String?
    let requestID: String
}

/// The `/mcp` requests whose tool calls may still be running, by the id the controller gives each (a header only
/// the server sets), so a tool's admin call is made with the credentials of the request it came with.
final class MCPInboundCalls: Sendable {
    private let calls = NIOLockedValueBox<[String: MCPInboundCall]>([:])

    /// The name of the header that carries the id to the SDK's handlers; a client's own is dropped.
    static let header = "x-rc-mcp-call"

    func register(_ call: MCPInboundCall) -> String {
        let id = UUID().uuidString
        calls.withLockedValue { $0[id] = call }
        return id
    }

    func remove(_ id: String) { _ = calls.withLockedValue { $0.removeValue(forKey: id) } }

    func call(_ id: String) -> MCPInboundCall? { calls.withLockedValue { $0[id] } }
}

/// The MCP sessions of this server: one SDK `Server` and Streamable HTTP transport per session, made at
/// `initialize`, bound to the identity that made it, and ended by `DELETE`, after an idle hour, after
/// `maxRequests` requests or `maxAnswerBytes` of answers. The SDK's transport keeps every message of a session
/// for resumption and offers no way to drop them, so a session ends before that grows large (the client then
/// initializes a new one). At most `maxSessions` at once, and `maxSessionsPerIdentity` of one caller (a new one
/// ends that caller's least recently used).
actor MCPSessions {
    private struct Session {
        let server: Server
        let transport: StatefulHTTPServerTransport
        let identity: String
        var lastUsed: ContinuousClock.Instant
        var requests: Int
        var answerBytes = 0
    }

    static let maxSessions = 1000
    static let maxSessionsPerIdentity = 16
    static let maxRequests = 10_000
    static let maxAnswerBytes = 64 << 20
    static let idleLimit: Duration = .seconds(3600)

    private var sessions: [String: Session] = [:]
    private var lastSweep = ContinuousClock.now
    private let makeServer: @Sendable () async -> Server

    /// Sessions whose servers `makeServer` builds.
    init(makeServer: @escaping @Sendable () async -> Server) {
        self.makeServer = makeServer
    }

    /// What the session of `request` answers: a new session for an `initialize` without a session id, else the
    /// session the id names, when it is `identity`'s.
    func handle(_ request: MCP.HTTPRequest, identity: String) async throws -> MCP.HTTPResponse {
        sweep()
        guard let id = request.header(HTTPHeaderName.sessionID) else {
            guard request.method == "POST", Self.isInitialize(request.body) else {
                return .error(statusCode: 400, .invalidRequest("Bad Request: Mcp-Session-Id header is required"))
            }
            return try await open(request, identity: identity)
        }
        // Another identity's session is answered as one that does not exist: its id tells nothing.
        guard var session = sessions[id], session.identity == identity else {
            return .error(statusCode: 404, .invalidRequest("Not Found: no such session; initialize a new one"))
        }
        session.lastUsed = .now
        session.requests += 1
        sessions[id] = session
        if session.requests > Self.maxRequests {
            await end(id)
            return .error(statusCode: 404, .invalidRequest("Not Found: the session has ended; initialize a new one"))
        }
        let transport = session.transport
        let response = await transport.handleRequest(request)
        if request.method == "DELETE", response.statusCode == 200 { await end(id) }
        return response
    }

    /// Counts `bytes` of answers against session `id`, and ends it past `maxAnswerBytes`.
    func answered(_ id: String, bytes: Int) async {
        guard var session = sessions[id] else { return }
        session.answerBytes += bytes
        sessions[id] = session
        if session.answerBytes > Self.maxAnswerBytes { await end(id) }
    }

    /// Ends every session (at shutdown: their streams close, so the server stops without waiting for them).
    func endAll() async {
        for id in Array(sessions.keys) { await end(id) }
    }

    /// Ends session `id` if it still exists.
    func end(_ id: String) async {
        guard let session = sessions.removeValue(forKey: id) else { return }
        await session.server.stop()
        await session.transport.disconnect()
    }

    private func open(_ request: MCP.HTTPRequest, identity: String) async throws -> MCP.HTTPResponse {
        let own = sessions.filter { $0.value.identity == identity }
        if own.count >= Self.maxSessionsPerIdentity, let oldest = own.min(by: { $0.value.lastUsed < $1.value.lastUsed })
        {
            await end(oldest.key)
        }
        guard sessions.count < Self.maxSessions else {
            throw APIError.unavailable("this server holds as many MCP sessions as it may; try again later")
        }
        let transport = StatefulHTTPServerTransport(
            validationPipeline: StandardValidationPipeline(validators: [
                // Origins are checked before (MCPController); the Host a deployment is reached by is its own.
                AcceptHeaderValidator(mode: .sseRequired), ContentTypeValidator(), ProtocolVersionValidator(),
                SessionValidator(),
            ]))
        let server = await makeServer()
        try await server.start(transport: transport)
        let response = await transport.handleRequest(request)
        guard let id = response.headers[HTTPHeaderName.sessionID], response.statusCode == 200 else {
            await server.stop()
            return response
        }
        sessions[id] = Session(
            server: server, transport: transport, identity: identity, lastUsed: .now, requests: 1)
        return response
    }

    /// Ends the sessions idle for longer than `idleLimit`, at most every ten seconds.
    private func sweep() {
        let now = ContinuousClock.now
        guard now - lastSweep > .seconds(10) else { return }
        lastSweep = now
        let idle = sessions.filter { now - $0.value.lastUsed > Self.idleLimit }.map(\.key)
        for id in idle {
            guard let session = sessions.removeValue(forKey: id) else { continue }
            Task {
                await session.server.stop()
                await session.transport.disconnect()
            }
        }
    }

    /// Whether `body` is a JSON-RPC `initialize` request.
    static func isInitialize(_ body: Data?) -> Bool {
        guard let body, let message = try? JSONValue(parsing: Array(body)) else { return false }
        return message["method"]?.stringValue == "initialize" && message["id"] != nil
    }
}
