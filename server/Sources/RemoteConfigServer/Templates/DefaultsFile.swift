import RemoteConfigCore

/// The in-app defaults file `:downloadDefaults` produces, in the format an app bundles.
enum DefaultsFile {
    enum Format: String {
        case json = "JSON"
        case plist = "PLIST"
        case xml = "XML"

        var fileName: String {
            switch self {
            case .json: "remote_config_defaults.json"
            case .plist: "RemoteConfigDefaults.plist"
            case .xml: "remote_config_defaults.xml"
            }
        }
    }

    /// The file's bytes and content type; values stay strings, as fetch sends them.
    static func render(_ defaults: [(String, String)], as format: Format) -> ([UInt8], String) {
        switch format {
        case .json:
            var object = JSONObjectBuilder()
            for (key, value) in defaults { object.add(key, value) }
            return (Array(object.text.utf8), "application/json; charset=utf-8")
        case .plist:
            var text = """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>

                """
            for (key, value) in defaults {
                text += "\t<key>\(escape(key))</key>\n\t<string>\(escape(value))</string>\n"
            }
            text += "</dict>\n</plist>\n"
            return (Array(text.utf8), "application/x-plist; charset=utf-8")
        case .xml:
            var text = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<defaultsMap>\n"
            for (key, value) in defaults {
                text +=
                    "    <entry>\n        <key>\(escape(key))</key>\n        <value>\(escape(value))</value>\n    </entry>\n"
            }
            text += "</defaultsMap>\n"
            return (Array(text.utf8), "application/xml; charset=utf-8")
        }
    }

    /// `text` as XML character data that reads back as `text`: markup characters as entities, CR as `&#13;`
    /// (a parser turns a raw CR into LF), and any character XML 1.0 cannot hold (publishing refuses them, but
    /// a value stored before that check may have one) as U+FFFD, so the file always parses.
    static func escape(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result.append(contentsOf: "&amp;".unicodeScalars)
            case "<": result.append(contentsOf: "&lt;".unicodeScalars)
            case ">": result.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": result.append(contentsOf: "&quot;".unicodeScalars)
            case "'": result.append(contentsOf: "&apos;".unicodeScalars)
            case "\r": result.append(contentsOf: "&#13;".unicodeScalars)
            default: result.append(TemplateValidator.isXMLCharacter(scalar) ? scalar : "\u{FFFD}")
            }
        }
        return String(result)
    }
}

/// An ordered JSON object of strings.
private struct JSONObjectBuilder {
    var object = JSONObject()
    mutating func add(_ key: String, _ value: String) { object[key] = .string(value) }
    var text: String { JSONValue.object(object).jsonString }
}
