import Foundation

/// Text inside a Slack message: escaped as Slack documents, and cut without breaking an escape.
enum SlackText {
    /// `text` with `&`, `<` and `>` written as `&amp;`, `&lt;` and `&gt;`: Slack reads `<…>` as a mention
    /// (`<!channel>`) or a link (`<https://…|label>`), so text of others' making must never carry one.
    static func escape(_ text: String) -> String {
        guard text.contains(where: { $0 == "&" || $0 == "<" || $0 == ">" }) else { return text }
        var out = ""
        out.reserveCapacity(text.count + 16)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }

    /// Escaped `text` cut to at most `limit` UTF-16 units (as Slack counts), ending in `…` when cut, never inside
    /// an escape.
    static func clip(_ text: String, to limit: Int) -> String {
        guard text.utf16.count > limit else { return text }
        var cut = ""
        var units = 0
        for character in text {
            units += character.utf16.count
            if units > limit - 1 { break }
            cut.append(character)
        }
        if let amp = cut.lastIndex(of: "&"), !cut[amp...].contains(";") { cut = String(cut[..<amp]) }
        return cut + "…"
    }
}
