/// Language tags compare case-insensitively, with `_` and `-` equivalent.
enum LanguageTag {
    static func normalize(_ tag: String) -> String {
        String(tag.lowercased().map { $0 == "_" ? "-" : $0 })
    }
}
