import Foundation
import MCP

/// A tool argument that is missing, of the wrong type or unknown: answered as a tool error in the API's
/// `INVALID_ARGUMENT` shape, naming the field, before any admin call is made.
public struct ToolInputError: Error, Sendable, Equatable {
    /// The argument at fault (`edits[0].set.parameter`).
    public let field: String
    /// A machine-readable reason (`REQUIRED`, `WRONG_TYPE`, `UNKNOWN_FIELD`, …).
    public let reason: String
    /// One sentence for a person.
    public let message: String

    /// An error at `field`.
    public init(field: String, reason: String, message: String) {
        self.field = field
        self.reason = reason
        self.message = message
    }
}

/// One input property of a tool: its name, JSON Schema and whether it must be given.
public struct ToolProperty: Sendable {
    public let name: String
    public let schema: Value
    public let required: Bool

    /// A property named `name` of `schema`.
    public init(_ name: String, _ schema: Value, required: Bool = false) {
        self.name = name
        self.schema = schema
        self.required = required
    }

    /// A string property described by `description`.
    static func string(_ name: String, _ description: String, required: Bool = false, pattern: String? = nil)
        -> ToolProperty
    {
        var schema: [String: Value] = ["type": "string", "description": .string(description)]
        if let pattern { schema["pattern"] = .string(pattern) }
        return ToolProperty(name, .object(schema), required: required)
    }

    /// One of `values`.
    static func choice(_ name: String, _ description: String, _ values: [String], required: Bool = false)
        -> ToolProperty
    {
        ToolProperty(
            name, ["type": "string", "description": .string(description), "enum": .array(values.map { .string($0) })],
            required: required)
    }

    /// An integer in `range`.
    static func integer(_ name: String, _ description: String, _ range: ClosedRange<Int>) -> ToolProperty {
        ToolProperty(
            name,
            [
                "type": "integer", "description": .string(description), "minimum": .int(range.lowerBound),
                "maximum": .int(range.upperBound),
            ])
    }

    /// A JSON object whose shape the API checks.
    static func object(_ name: String, _ description: String, required: Bool = false) -> ToolProperty {
        ToolProperty(name, ["type": "object", "description": .string(description)], required: required)
    }

    /// The project every project tool takes.
    static let project = ToolProperty.string(
        "project", "The project's id (projectId, as list_projects answers it).", required: true,
        pattern: "^[a-z][a-z0-9-]{2,62}$")
}

/// A tool call's arguments, checked against the tool's properties: unknown names are refused, each read is typed.
public struct ToolArguments: Sendable {
    let values: [String: Value]

    /// The arguments of a call, refused when one is not among `properties` or a required one is missing.
    init(_ values: [String: Value]?, properties: [ToolProperty]) throws(ToolInputError) {
        let values = values ?? [:]
        let known = Set(properties.map(\.name))
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw ToolInputError(
                field: unknown, reason: "UNKNOWN_FIELD",
                message:
                    "\(unknown) is not an argument of this tool; it takes \(properties.map(\.name).joined(separator: ", "))"
            )
        }
        for property in properties where property.required && values[property.name] == nil {
            throw ToolInputError(field: property.name, reason: "REQUIRED", message: "\(property.name) is required")
        }
        self.values = values
    }

    /// Whether `name` was given (and is not null).
    func has(_ name: String) -> Bool {
        if let value = values[name], value != .null { return true }
        return false
    }

    /// A string argument; nil when absent.
    func string(_ name: String) throws(ToolInputError) -> String? {
        switch values[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw ToolInputError(field: name, reason: "WRONG_TYPE", message: "\(name) must be a string")
        }
    }

    /// A required string argument.
    func requiredString(_ name: String) throws(ToolInputError) -> String {
        guard let text = try string(name) else {
            throw ToolInputError(field: name, reason: "REQUIRED", message: "\(name) is required")
        }
        return text
    }

    /// A number or a string argument as the text a query parameter carries; nil when absent.
    func queryText(_ name: String) throws(ToolInputError) -> String? {
        switch values[name] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case .int(let number)?: return String(number)
        case .double(let number)?:
            return number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
        case .bool(let flag)?: return flag ? "true" : "false"
        default:
            throw ToolInputError(field: name, reason: "WRONG_TYPE", message: "\(name) must be a string or a number")
        }
    }

    /// An object argument; nil when absent.
    func object(_ name: String) throws(ToolInputError) -> [String: Value]? {
        switch values[name] {
        case nil, .null?: return nil
        case .object(let object)?: return object
        default: throw ToolInputError(field: name, reason: "WRONG_TYPE", message: "\(name) must be a JSON object")
        }
    }

    /// An array argument; nil when absent.
    func array(_ name: String) throws(ToolInputError) -> [Value]? {
        switch values[name] {
        case nil, .null?: return nil
        case .array(let items)?: return items
        default: throw ToolInputError(field: name, reason: "WRONG_TYPE", message: "\(name) must be an array")
        }
    }

    /// A boolean argument; nil when absent.
    func bool(_ name: String) throws(ToolInputError) -> Bool? {
        switch values[name] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw ToolInputError(field: name, reason: "WRONG_TYPE", message: "\(name) must be true or false")
        }
    }

    /// The query parameters `names` that were given, as the API names them.
    func query(_ names: [String]) throws(ToolInputError) -> [AdminCall.Query] {
        var items: [AdminCall.Query] = []
        for name in names {
            if let text = try queryText(name) { items.append(AdminCall.Query(name: name, value: text)) }
        }
        return items
    }

    /// `/v1/projects/{project}` with the `project` argument.
    func projectPath(_ rest: String = "") throws(ToolInputError) -> String {
        "/v1/projects/" + AdminCall.segment(try requiredString("project")) + rest
    }
}

extension Value {
    /// This value as JSON bytes.
    var jsonBytes: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(self)) ?? Data("null".utf8))
    }

    /// The value parsed from JSON bytes; nil when they are not JSON.
    init?(jsonBytes: [UInt8]) {
        guard let value = try? JSONDecoder().decode(Value.self, from: Data(jsonBytes)) else { return nil }
        self = value
    }
}
