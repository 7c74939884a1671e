/// Splits a SQL script into statements, since PostgresNIO runs one statement per query.
///
/// Understands what can hide a `;`: quoted strings and identifiers, dollar-quoted bodies (`$$ … $$`,
/// `$tag$ … $tag$`), line comments and nested block comments.
enum SQLScript {
    static func statements(_ script: String) -> [String] {
        let chars = Array(script.unicodeScalars)
        var statements: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0

        func flush() {
            let text = String(current).trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty { statements.append(text) }
            current = String.UnicodeScalarView()
        }
        func copy(until end: Int) {
            while index < min(end, chars.count) {
                current.append(chars[index])
                index += 1
            }
        }
        func find(_ needle: [Unicode.Scalar], from start: Int) -> Int {
            var position = start
            while position + needle.count <= chars.count {
                if Array(chars[position..<position + needle.count]) == needle { return position }
                position += 1
            }
            return chars.count
        }

        while index < chars.count {
            let char = chars[index]
            let next = index + 1 < chars.count ? chars[index + 1] : nil
            switch char {
            case "'", "\"":
                var end = index + 1
                while end < chars.count {
                    if chars[end] == char {
                        if end + 1 < chars.count, chars[end + 1] == char {
                            end += 2
                            continue
                        }
                        break
                    }
                    end += 1
                }
                copy(until: end + 1)
            case "-" where next == "-":
                index = find(["\n"], from: index)
            case "/" where next == "*":
                var depth = 0
                while index < chars.count {
                    if chars[index] == "/", index + 1 < chars.count, chars[index + 1] == "*" {
                        depth += 1
                        index += 2
                    } else if chars[index] == "*", index + 1 < chars.count, chars[index + 1] == "/" {
                        depth -= 1
                        index += 2
                        if depth == 0 { break }
                    } else {
                        index += 1
                    }
                }
            case "$":
                var tagEnd = index + 1
                while tagEnd < chars.count, chars[tagEnd].properties.isAlphabetic || chars[tagEnd] == "_" {
                    tagEnd += 1
                }
                if tagEnd < chars.count, chars[tagEnd] == "$" {
                    let tag = Array(chars[index...tagEnd])
                    let close = find(tag, from: tagEnd + 1)
                    copy(until: close + tag.count)
                } else {
                    copy(until: index + 1)
                }
            case ";":
                index += 1
                flush()
            default:
                copy(until: index + 1)
            }
        }
        flush()
        return statements
    }
}
