import Foundation
import HTTPTypes
import Hummingbird
import MCP
import NIOCore
import RemoteConfigMCP
import ServiceLifecycle

/// `/mcp`: the Model Context Protocol's Streamable HTTP transport (the official Swift SDK's), for assistants.
/// Every request is authenticated as an admin call is (401 with `WWW-Authenticate: Bearer` without a key); each
/// tool is an admin call made through this router with that request's credentials (`InProcessAdminCaller`).
struct MCPController {
    let auth: Authenticator
    let sessions: MCPSessions
    let inbound: MCPInboundCalls

    /// The server's MCP sessions, whose tools call `responder` (the router, once built).
    static func sessions(responder: AdminResponder, inbound: MCPInboundCalls, version: String) -> MCPSessions {
        MCPSessions {
            await AssistantServer.make(version: version) {
                guard let id = Server.currentHandlerContext?.httpContext?.header(MCPInboundCalls.header),
                    let call = inbound.call(id)
                else { throw MCPError.internalError("the request this call came with has ended") }
                return InProcessAdminCaller(responder: responder, inbound: call)
            }
        }
    }

    func addRoutes(to routes: Routes) {
        routes.post("/mcp", use: handle)
        routes.get("/mcp", use: handle)
        routes.delete("/mcp", use: handle)
        // The stream has no headers-only form.
        routes.refuse(.head, "/mcp")
    }

    @Sendable func handle(_ request: Request, context: AppRequestContext) async throws -> Response {
        let caller = try await auth.adminSide(request)
        try checkOrigin(request)
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        var headers: [String: String] = [:]
        for field in request.headers where field.name.canonicalName != MCPInboundCalls.header {
            // Repeated headers (none the transport reads) keep their last value.
            headers[field.name.canonicalName] = field.value
        }
        var callID: String?
        if request.method == .post {
            let id = inbound.register(
                MCPInboundCall(
                    channel: context.channel, logger: context.logger, authorization: request.headers[.authorization],
                    requestID: context.requestID))
            headers[MCPInboundCalls.header] = id
            callID = id
        }
        let answer: MCP.HTTPResponse
        do {
            answer = try await sessions.handle(
                MCP.HTTPRequest(
                    method: request.method.rawValue, headers: headers,
                    body: body.readableBytes > 0 ? Data(body.readableBytesView) : nil, path: "/mcp"),
                identity: caller.identity)
        } catch {
            if let callID { inbound.remove(callID) }
            throw error
        }
        return response(answer, callID: callID)
    }

    /// The SDK's answer as Hummingbird's; a stream's call id is let go when the stream ends.
    private func response(_ answer: MCP.HTTPResponse, callID: String?) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields[name] = value }
        }
        let status = HTTPResponse.Status(code: answer.statusCode)
        guard case .stream(let stream, _) = answer else {
            if let callID { inbound.remove(callID) }
            let bytes = answer.bodyData.map { ByteBuffer(bytes: $0) } ?? ByteBuffer()
            return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: bytes))
        }
        let inbound = self.inbound
        let sessions = self.sessions
        let sessionID = answer.headers[HTTPHeaderName.sessionID]
        return Response(
            status: status, headers: fields,
            body: ResponseBody { writer in
                var written = 0
                defer { if let callID { inbound.remove(callID) } }
                try await withGracefulShutdownHandler {
                    for try await chunk in stream {
                        written += chunk.count
                        try await writer.write(ByteBuffer(bytes: chunk))
                    }
                } onGracefulShutdown: {
                    Task { await sessions.endAll() }
                }
                try await writer.finish(nil)
                if let sessionID { await sessions.answered(sessionID, bytes: written) }
            })
    }

    /// A browser's request must come from this server's own origin (`--public-url`) or a loopback one: a page
    /// elsewhere must not drive an assistant's session (DNS rebinding).
    private func checkOrigin(_ request: Request) throws {
        guard let origin = request.headers[.origin]?.lowercased() else { return }
        if let own = auth.publicOrigin?.lowercased(), origin == own { return }
        guard let url = URL(string: origin), let host = url.host?.lowercased(),
            ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host)
        else {
            throw APIError.permissionDenied("requests to /mcp from the web page origin \(origin) are not allowed")
        }
    }
}
