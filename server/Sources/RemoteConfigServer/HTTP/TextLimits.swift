/// Bounds on the free text the server stores (display names, version and change request descriptions, review
/// comments), so no request can make
/// later reads (`listVersions`, the audit log) carry megabytes. Lengths count Unicode scalars, which bound
/// the stored bytes (a grapheme count does not: one "character" may hold any number of combining marks).
enum TextLimits {
    /// A version's `description`: Firebase's limit.
    static let description = 256
    /// A project's or key's `displayName`.
    static let displayName = 200
    /// A change request's approval or rejection `comment`.
    static let comment = 1_000

    /// 400 `TOO_LONG` naming `field` when `text` has more than `limit` scalars.
    static func check(_ text: String, field: String, limit: Int) throws(APIError) {
        guard text.unicodeScalars.count <= limit else {
            throw APIError.invalidField(field, reason: "TOO_LONG", "\(field) is at most \(limit) characters")
        }
    }

    /// A description the server writes itself (a store sync's, a policy's raise): `text`, cut to `description`
    /// scalars with an ellipsis when longer, so it always publishes.
    static func clippedDescription(_ text: String) -> String {
        guard text.unicodeScalars.count > description else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.prefix(description - 1))) + "…"
    }

    /// A display name: at most `displayName` characters, and no control character (a CR or LF in a name
    /// forges lines wherever names are printed: logs, consoles, exports).
    static func checkDisplayName(_ text: String, field: String = "displayName") throws(APIError) {
        try check(text, field: field, limit: displayName)
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw APIError.invalidField(
                field, reason: "INVALID_CHARACTER", "\(field) must not contain control characters (CR, LF, tab, …)")
        }
    }
}
