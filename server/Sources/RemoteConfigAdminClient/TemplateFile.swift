import RemoteConfigCore

/// The template file kept in git: the template JSON with the `version` it was pulled at.
public enum TemplateFile {
    /// `version.versionNumber` (a decimal string, or a number), nil when absent.
    public static func versionNumber(of template: JSONObject) -> Int64? {
        guard let value = template["version"]?["versionNumber"] else { return nil }
        switch value {
        case .string(let text): return Int64(text)
        case .number(let text): return Int64(text)
        default: return nil
        }
    }

    /// The body to publish: the file with its `version` replaced by what a publish may say (the new version's
    /// description and `updateOrigin`); the server ignores the rest of a `version` anyway.
    public static func publishBody(_ file: JSONObject, description: String?, origin: String) -> JSONObject {
        var body = file
        var version: JSONObject = [:]
        if let description { version["description"] = .string(description) }
        version["updateOrigin"] = .string(origin)
        body["version"] = .object(version)
        return body
    }

    /// The file with the `version` of a publish's answer, so the next publish starts from that version.
    public static func recording(_ published: JSONObject, in file: JSONObject) -> JSONObject {
        var copy = file
        copy["version"] = published["version"]
        return copy
    }

    /// The file's template without its `version`, for comparing.
    public static func template(_ file: JSONObject) throws -> RemoteConfigTemplate {
        var copy = file
        copy["version"] = nil
        return try RemoteConfigTemplate(json: JSONValue.object(copy).jsonBytes())
    }

    /// 1-based line and column of a byte offset, for parse errors people can find in an editor.
    public static func position(of offset: Int, in bytes: [UInt8]) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }
}
