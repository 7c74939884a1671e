import RemoteConfigAPI
import RemoteConfigCore

/// How `--json` prints the reports the command line decodes (insights, rollouts): keys sorted, two spaces per
/// level, `"key" : value`, empty containers on three lines. That is how Foundation's pretty printer wrote them,
/// kept byte for byte so that scripts reading them see what they always saw.
enum SortedJSON {
    /// `body` encoded as the server writes it, then printed sorted.
    static func text(_ body: some Encodable) throws -> String {
        var output: [UInt8] = []
        write(try APIEncoder.encode(body), into: &output, indent: 0)
        return String(decoding: output, as: UTF8.self)
    }

    /// `value` with every object's members sorted by key: how the server wrote an impact report, which
    /// `template impact --json` prints as it came.
    static func sortingKeys(_ value: JSONValue) -> JSONValue {
        switch value {
        case .array(let elements): return .array(elements.map(sortingKeys))
        case .object(let object):
            var sorted = JSONObject()
            for member in object.members.sorted(by: { $0.key < $1.key }) {
                sorted[member.key] = sortingKeys(member.value)
            }
            return .object(sorted)
        default: return value
        }
    }

    private static func write(_ value: JSONValue, into output: inout [UInt8], indent: Int) {
        switch value {
        case .null: output += "null".utf8
        case .bool(let flag): output += (flag ? "true" : "false").utf8
        case .number(let text): output += text.utf8
        case .string(let text): string(text, into: &output)
        case .array(let elements):
            output += "[\n".utf8
            for (position, element) in elements.enumerated() {
                if position > 0 { output += ",\n".utf8 }
                pad(indent + 1, &output)
                write(element, into: &output, indent: indent + 1)
            }
            output += "\n".utf8
            pad(indent, &output)
            output += "]".utf8
        case .object(let object):
            output += "{\n".utf8
            for (position, member) in object.members.sorted(by: { $0.key < $1.key }).enumerated() {
                if position > 0 { output += ",\n".utf8 }
                pad(indent + 1, &output)
                string(member.key, into: &output)
                output += " : ".utf8
                write(member.value, into: &output, indent: indent + 1)
            }
            output += "\n".utf8
            pad(indent, &output)
            output += "}".utf8
        }
    }

    private static func pad(_ indent: Int, _ output: inout [UInt8]) {
        output += repeatElement(UInt8(ascii: " "), count: indent * 2)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Foundation's escapes: `\b` and `\f` by name, other control characters as `\u00xx`, `/` as it is.
    private static func string(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += #"\""#.utf8
            case UInt8(ascii: "\\"): output += #"\\"#.utf8
            case 0x08: output += #"\b"#.utf8
            case 0x09: output += #"\t"#.utf8
            case 0x0A: output += #"\n"#.utf8
            case 0x0C: output += #"\f"#.utf8
            case 0x0D: output += #"\r"#.utf8
            case 0x00..<0x20:
                output += #"\u00"#.utf8
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
