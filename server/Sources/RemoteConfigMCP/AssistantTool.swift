import Foundation
import MCP

/// One tool an assistant may call: what it is called, what it says it does (and never does), its input
/// schema, and the admin API call it is.
public struct AssistantTool: Sendable {
    /// What a call does with its checked arguments.
    enum Action: Sendable {
        /// Exactly one admin API call, answered as the API answered it.
        case call(@Sendable (ToolArguments) throws(ToolInputError) -> AdminCall)
        /// A small fixed sequence of admin calls (propose_change).
        case sequence(@Sendable (ToolArguments, any AdminCaller) async throws -> CallTool.Result)
    }

    public let name: String
    public let title: String
    public let description: String
    public let properties: [ToolProperty]
    /// Whether the tool only reads (every tool but propose_change).
    public let readOnly: Bool
    let action: Action

    /// The tool as `tools/list` describes it.
    public var descriptor: Tool {
        var schema: [String: Value] = [
            "type": "object",
            "properties": .object(Dictionary(uniqueKeysWithValues: properties.map { ($0.name, $0.schema) })),
            "additionalProperties": false,
        ]
        let required = properties.filter(\.required).map { Value.string($0.name) }
        if !required.isEmpty { schema["required"] = .array(required) }
        return Tool(
            name: name, title: title, description: description, inputSchema: .object(schema),
            annotations: .init(
                title: title, readOnlyHint: readOnly, destructiveHint: false, idempotentHint: readOnly,
                openWorldHint: false))
    }

    /// Runs the tool with `arguments` through `caller`: bad arguments and the API's refusals are tool errors.
    public func run(_ arguments: [String: Value]?, caller: any AdminCaller) async throws -> CallTool.Result {
        let checked: ToolArguments
        do {
            checked = try ToolArguments(arguments, properties: properties)
            switch action {
            case .call(let make):
                return ToolResult.of(try await caller.send(try make(checked)))
            case .sequence(let run):
                return try await run(checked, caller)
            }
        } catch let error as ToolInputError {
            return ToolResult.invalid(error)
        }
    }
}

/// How admin answers become tool results: the API's JSON as the structured result (and as text, for clients
/// that read only text); a refusal as a tool error whose text is the API's message.
enum ToolResult {
    /// The result of one admin answer.
    static func of(_ answer: AdminAnswer) -> CallTool.Result {
        let value = Value(jsonBytes: answer.body)
        let structured: Value? =
            switch value {
            case .object?: value
            case nil: nil
            case let other?: .object(["result": other])
            }
        guard answer.succeeded else {
            return CallTool.Result(
                content: [.text(text: refusal(answer.status, value), annotations: nil, _meta: nil)],
                structuredContent: structured, isError: true)
        }
        return CallTool.Result(
            content: [.text(text: String(decoding: answer.body, as: UTF8.self), annotations: nil, _meta: nil)],
            structuredContent: structured, isError: false)
    }

    /// A success made of several answers (`parts`, named, each its JSON bytes), as one structured result; the
    /// text keeps each answer's own member order, which the structured value cannot.
    static func combined(_ parts: [(String, [UInt8])]) -> CallTool.Result {
        var text = "{"
        for (index, (name, bytes)) in parts.enumerated() {
            text += (index == 0 ? "" : ",") + "\"\(name)\":" + String(decoding: bytes, as: UTF8.self)
        }
        text += "}"
        let value = Value.object(
            Dictionary(uniqueKeysWithValues: parts.map { ($0.0, Value(jsonBytes: $0.1) ?? .null) }))
        return CallTool.Result(
            content: [.text(text: text, annotations: nil, _meta: nil)], structuredContent: Optional(value),
            isError: false)
    }

    /// Arguments the tool refused before calling anything, in the API's error shape.
    static func invalid(_ error: ToolInputError) -> CallTool.Result {
        let body: Value = [
            "error": [
                "code": 400, "status": "INVALID_ARGUMENT", "message": .string(error.message),
                "details": [["field": .string(error.field), "reason": .string(error.reason)]],
            ]
        ]
        return CallTool.Result(
            content: [.text(text: "INVALID_ARGUMENT: \(error.message)", annotations: nil, _meta: nil)],
            structuredContent: Optional(body), isError: true)
    }

    /// `STATUS: message` of an API error body (the status code when the body is not the API's error shape).
    static func refusal(_ status: Int, _ body: Value?) -> String {
        guard case .object(let object)? = body, case .object(let error)? = object["error"],
            case .string(let message)? = error["message"]
        else { return "the server answered \(status)" }
        if case .string(let name)? = error["status"] { return "\(name): \(message)" }
        return message
    }
}
