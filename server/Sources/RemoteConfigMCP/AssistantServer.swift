import Foundation
import MCP

/// The MCP server both transports run: the tool table and the two resources, over an `AdminCaller` that the
/// transport provides for each request (the HTTP caller's own credentials in `/mcp`, the command line's in stdio).
public enum AssistantServer {
    /// The name the server gives in `initialize`.
    public static let name = "remote-config"

    /// What the server tells an assistant at `initialize`.
    public static let instructions = """
        remote-config serves Remote Config templates to apps. These tools read the templates, versions, change \
        requests, audit log and fleet insights (which app versions are out there, what a change would do, the \
        minimum version that is safe to require) with your key's role and projects. None publishes, approves, \
        rolls back or deletes: propose_change opens a change request, which a person approves and publishes.
        """

    /// The URI templates of the resources.
    public static let templateURI = "remoteconfig://projects/{p}/template"
    public static let versionsURI = "remoteconfig://projects/{p}/insights/versions"

    /// A server named `version`, not started, whose handlers call the admin API through `caller()`.
    public static func make(version: String, caller: @escaping @Sendable () async throws -> any AdminCaller) async
        -> Server
    {
        let server = Server(
            name: name, version: version, title: "remote-config", instructions: instructions,
            capabilities: .init(
                resources: .init(subscribe: false, listChanged: false), tools: .init(listChanged: false)))
        await server.withMethodHandler(ListTools.self) { _ in
            ListTools.Result(tools: AssistantTools.all.map(\.descriptor))
        }
        await server.withMethodHandler(CallTool.self) { parameters in
            guard let tool = AssistantTools.named(parameters.name) else {
                throw MCPError.invalidParams("unknown tool \(parameters.name)")
            }
            return try await tool.run(parameters.arguments, caller: try await caller())
        }
        await server.withMethodHandler(ListResourceTemplates.self) { _ in
            ListResourceTemplates.Result(templates: [
                Resource.Template(
                    uriTemplate: templateURI, name: "template", title: "Published template",
                    description: "A project's published template (GET /v1/projects/{p}/remoteConfig).",
                    mimeType: "application/json"),
                Resource.Template(
                    uriTemplate: versionsURI, name: "insights-versions", title: "Fleet by app version",
                    description: "Active instances per platform and app version over the last 7 days "
                        + "(GET /v1/projects/{p}/insights/versions).",
                    mimeType: "application/json"),
            ])
        }
        await server.withMethodHandler(ListResources.self) { _ in
            ListResources.Result(resources: try await resources(caller()))
        }
        await server.withMethodHandler(ReadResource.self) { parameters in
            let call = try ResourceURI.call(parameters.uri)
            let answer = try await caller().send(call)
            guard answer.succeeded else {
                let message = ToolResult.refusal(answer.status, Value(jsonBytes: answer.body))
                // -32002: the protocol's "resource not found"; other refusals as invalid parameters.
                if answer.status == 404 { throw MCPError.serverError(code: -32002, message: message) }
                throw MCPError.invalidParams(message)
            }
            return ReadResource.Result(contents: [
                .text(String(decoding: answer.body, as: UTF8.self), uri: parameters.uri, mimeType: "application/json")
            ])
        }
        return server
    }

    /// The two resources of each project the caller sees.
    private static func resources(_ caller: any AdminCaller) async throws -> [Resource] {
        let answer = try await caller.send(AdminCall("GET", "/v1/projects"))
        guard answer.succeeded else {
            throw MCPError.invalidParams(ToolResult.refusal(answer.status, Value(jsonBytes: answer.body)))
        }
        guard case .object(let body)? = Value(jsonBytes: answer.body), case .array(let projects)? = body["projects"]
        else { return [] }
        return projects.flatMap { project -> [Resource] in
            guard case .object(let fields) = project, case .string(let id)? = fields["projectId"] else { return [] }
            return [
                Resource(
                    name: "\(id) template", uri: "remoteconfig://projects/\(id)/template",
                    description: "The published template of \(id).", mimeType: "application/json"),
                Resource(
                    name: "\(id) fleet by version", uri: "remoteconfig://projects/\(id)/insights/versions",
                    description: "Active instances of \(id) per platform and app version, last 7 days.",
                    mimeType: "application/json"),
            ]
        }
    }
}

/// The admin call a resource URI stands for.
enum ResourceURI {
    static func call(_ uri: String) throws -> AdminCall {
        let prefix = "remoteconfig://projects/"
        guard uri.hasPrefix(prefix) else { throw MCPError.invalidParams("not a remote-config resource: \(uri)") }
        let rest = uri.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard rest.count >= 2, !rest[0].isEmpty else {
            throw MCPError.invalidParams("not a remote-config resource: \(uri)")
        }
        let project = "/v1/projects/" + AdminCall.segment(String(rest[0]))
        switch rest.dropFirst().joined(separator: "/") {
        case "template": return AdminCall("GET", project + "/remoteConfig")
        case "insights/versions": return AdminCall("GET", project + "/insights/versions")
        default:
            throw MCPError.serverError(code: -32002, message: "no such resource: \(uri)")
        }
    }
}
