import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import RemoteConfigMCP

/// Makes a tool's admin call through the server's own router, with the caller's `Authorization`, so role,
/// project scope, validation, audit and errors are exactly the API's.
struct InProcessAdminCaller: AdminCaller {
    let responder: AdminResponder
    /// The inbound `/mcp` request the tool call came with.
    let inbound: MCPInboundCall

    /// The largest admin answer a tool takes (a 1 MiB template with its diff fits many times over).
    static let maxAnswerBytes = 16 << 20

    func send(_ call: AdminCall) async throws -> AdminAnswer {
        var fields = HTTPFields()
        if let authorization = inbound.authorization { fields[.authorization] = authorization }
        fields[.accept] = "application/json"
        fields[HTTPField.Name(AdminVia.header)!] = AdminVia.mcp
        if let ifMatch = call.ifMatch { fields[.ifMatch] = ifMatch }
        var body = ByteBuffer()
        if let bytes = call.body {
            fields[.contentType] = "application/json"
            body = ByteBuffer(bytes: bytes)
        }
        let head = HTTPRequest(
            method: HTTPRequest.Method(call.method) ?? .get, scheme: nil, authority: nil, path: call.target,
            headerFields: fields)
        let request = Request(head: head, body: RequestBody(buffer: body))
        var context = AppRequestContext(
            source: ApplicationRequestContextSource(channel: inbound.channel, logger: inbound.logger))
        context.requestID = inbound.requestID
        let response = try await responder.respond(to: request, context: context)
        let collected = NIOLockedValueBox(ByteBuffer())
        try await response.body.write(CollectingWriter(collected: collected, limit: Self.maxAnswerBytes))
        let bytes = collected.withLockedValue { Array($0.readableBytesView) }
        return AdminAnswer(status: response.status.code, body: bytes)
    }
}

/// The router's responder, set once the router is complete (the `/mcp` route is one of its routes).
final class AdminResponder: Sendable {
    private let responder = NIOLockedValueBox<(any HTTPResponder<AppRequestContext>)?>(nil)

    /// Sets the responder the tools call.
    func set(_ responder: some HTTPResponder<AppRequestContext>) {
        self.responder.withLockedValue { $0 = responder }
    }

    func respond(to request: Request, context: AppRequestContext) async throws -> Response {
        guard let responder = responder.withLockedValue({ $0 }) else {
            throw APIError.unavailable("the server is starting")
        }
        return try await responder.respond(to: request, context: context)
    }
}

/// Collects a response body into a buffer, up to a limit.
private struct CollectingWriter: ResponseBodyWriter {
    let collected: NIOLockedValueBox<ByteBuffer>
    let limit: Int

    mutating func write(_ buffer: ByteBuffer) async throws {
        try collected.withLockedValue { total in
            var buffer = buffer
            guard total.readableBytes + buffer.readableBytes <= limit else {
                throw APIError(.internalServerError, "an admin answer was larger than \(limit) bytes")
            }
            total.writeBuffer(&buffer)
        }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
