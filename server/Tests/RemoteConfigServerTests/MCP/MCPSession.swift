import Foundation
import HTTPTypes
import RemoteConfigCore
import RemoteConfigTestSupport

/// An MCP client over `/mcp` written out by hand for the endpoint tests: JSON-RPC posted with the Streamable HTTP
/// headers, each answer read from its SSE stream. (The real-client test is Tests/MCP/mcp_client_test.py.)
struct MCPSession {
    let app: TestApp.Session
    let token: String?
    var sessionID: String?
    var nextID = 1

    init(_ app: TestApp.Session, token: String?) {
        self.app = app
        self.token = token
    }

    /// Posts one JSON-RPC message; the reply and, for a request, the message its stream carried.
    mutating func post(_ message: JSONValue) async throws -> (TestApp.Reply, JSONValue?) {
        var headers: HTTPFields = [.accept: "application/json, text/event-stream"]
        if let sessionID { headers[HTTPField.Name("Mcp-Session-Id")!] = sessionID }
        headers[HTTPField.Name("MCP-Protocol-Version")!] = "2025-06-18"
        let reply = try await app.call(.post, "/mcp", token: token, json: message, headers: headers)
        return (reply, Self.lastMessage(reply.text))
    }

    /// Sends request `method` and returns its JSON-RPC answer (with `result` or `error`).
    mutating func request(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
        let id = nextID
        nextID += 1
        let (reply, message) = try await post([
            "jsonrpc": "2.0", "id": .integer(id), "method": .string(method), "params": params,
        ])
        guard let message else { throw MCPSessionFailure("\(method) answered \(reply.status): \(reply.text)") }
        return message
    }

    /// Initializes a session asking for `version`; the `initialize` result.
    mutating func initialize(version: String = "2025-06-18") async throws -> JSONValue {
        let (reply, message) = try await post([
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": [
                "protocolVersion": .string(version), "capabilities": [:],
                "clientInfo": ["name": "endpoint-test", "version": "1"],
            ],
        ])
        sessionID = reply.headers[HTTPField.Name("Mcp-Session-Id")!]
        guard let result = message?["result"] else {
            throw MCPSessionFailure("initialize answered \(reply.status): \(reply.text)")
        }
        _ = try await post(["jsonrpc": "2.0", "method": "notifications/initialized"])
        return result
    }

    /// Calls tool `name`; its result (`structuredContent`, `isError`, `content`).
    mutating func call(_ name: String, _ arguments: JSONValue = [:]) async throws -> JSONValue {
        let answer = try await request("tools/call", ["name": .string(name), "arguments": arguments])
        guard let result = answer["result"] else { throw MCPSessionFailure("\(name): \(answer.jsonString)") }
        return result
    }

    /// The last `data:` line of an SSE body that holds a JSON-RPC message.
    static func lastMessage(_ text: String) -> JSONValue? {
        text.split(separator: "\n").reversed().lazy.compactMap { line -> JSONValue? in
            guard line.hasPrefix("data:") else { return nil }
            let data = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
            return data.isEmpty ? nil : try? JSONValue(parsing: data)
        }.first
    }
}

extension JSONValue {
    /// A tool result's error text (its first content item), when it is a tool error.
    var toolError: String? {
        guard self["isError"]?.boolValue == true else { return nil }
        return self["content"]?[0]?["text"]?.stringValue
    }

    /// A tool result's structured content.
    var structured: JSONValue { self["structuredContent"] ?? .null }
}

/// An answer the hand-written client could not read.
struct MCPSessionFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}
