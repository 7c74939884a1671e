extension JSONValue {
    /// Encodes as compact UTF-8 JSON, members in order, numbers as their original text.
    public func jsonBytes() -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        JSONWriter.write(self, into: &output, indent: nil)
        return output
    }

    /// Encodes as indented (two spaces) UTF-8 JSON, for people and files.
    public func prettyJSONBytes() -> [UInt8] {
        var output: [UInt8] = []
        JSONWriter.write(self, into: &output, indent: 0)
        output.append(UInt8(ascii: "\n"))
        return output
    }

    /// The compact JSON text.
    public var jsonString: String { String(decoding: jsonBytes(), as: UTF8.self) }
}

/// Writes `JSONValue`s; strings are escaped minimally so non-ASCII text stays readable UTF-8.
public enum JSONWriter {
    static func write(_ value: JSONValue, into output: inout [UInt8], indent: Int?) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text): output.append(contentsOf: text.utf8)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(into: &output, indent: indent.map { $0 + 1 })
                write(element, into: &output, indent: indent.map { $0 + 1 })
            }
            if !elements.isEmpty { newline(into: &output, indent: indent) }
            output.append(UInt8(ascii: "]"))
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            for (position, member) in object.members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                newline(into: &output, indent: indent.map { $0 + 1 })
                writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                if indent != nil { output.append(UInt8(ascii: " ")) }
                write(member.value, into: &output, indent: indent.map { $0 + 1 })
            }
            if !object.isEmpty { newline(into: &output, indent: indent) }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(into output: inout [UInt8], indent: Int?) {
        guard let indent else { return }
        output.append(UInt8(ascii: "\n"))
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends `text` as a JSON string (the fetch path writes its answers with this, without a `JSONValue`).
    public static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: output.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                output.append(contentsOf: "\\u00".utf8)
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
