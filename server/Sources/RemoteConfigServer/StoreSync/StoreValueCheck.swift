import Foundation
import RemoteConfigCore
import RemoteConfigVersions

/// What a store value must be before it goes into a parameter: the store's answer is input from outside, and a
/// parameter's value reaches every app. A value that fails makes the whole sync fail, so nothing is published.
enum StoreValueCheck {
    /// The longest excerpt of a refused value that an error quotes.
    static let excerptLength = 80

    /// Throws the reason `value` (the store's `field`) may not go into `parameter`.
    static func check(_ value: String, field: StoreField, parameter: String) throws(StoreSyncProblem) {
        switch field {
        case .version, .minimumOsVersion:
            guard isVersion(value) else {
                throw StoreSyncProblem(
                    description: "the App Store's \(field.rawValue) is not a version: \(excerpt(value))")
            }
        case .currentVersionReleaseDate:
            guard RFC3339.parse(value) != nil else {
                throw StoreSyncProblem(
                    description: "the App Store's \(field.rawValue) is not an RFC 3339 time: \(excerpt(value))")
            }
        case .trackViewUrl, .releaseNotes:
            break
        }
        if field == .trackViewUrl || parameter.hasSuffix("_url") {
            guard isHTTPSURL(value) else {
                throw StoreSyncProblem(
                    description:
                        "the App Store's \(field.rawValue) is not an https URL with a host, so it cannot go into "
                        + "\(parameter): \(excerpt(value))")
            }
        }
    }

    /// Digits separated by single dots, at most five parts, as Apple requires of `CFBundleShortVersionString`,
    /// and as the version operators of conditions read it.
    static func isVersion(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 100, SemanticVersion(text) != nil else { return false }
        var previous: UInt8 = UInt8(ascii: ".")
        for byte in text.utf8 {
            let digit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard digit || (byte == UInt8(ascii: ".") && previous != UInt8(ascii: ".")) else { return false }
            previous = byte
        }
        return previous != UInt8(ascii: ".")
    }

    /// `https://host…` in printable ASCII with no space, quote, angle bracket or backslash: what a store page's
    /// address is, and nothing a browser or an app would run (`javascript:`) or a page would read as markup.
    static func isHTTPSURL(_ text: String) -> Bool {
        guard text.utf8.count <= 2048,
            text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"\"<>\\^`{|}".utf8.contains($0) }),
            let components = URLComponents(string: text), components.scheme?.lowercased() == "https",
            let host = components.host, !host.isEmpty
        else { return false }
        return true
    }

    /// The start of `value`, quoted, for an error message (the log escapes its control characters).
    static func excerpt(_ value: String) -> String {
        let scalars = value.unicodeScalars
        guard scalars.count > excerptLength else { return "\"\(value)\"" }
        return "\"\(String(String.UnicodeScalarView(scalars.prefix(excerptLength))))…\""
    }
}
