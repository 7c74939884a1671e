import Foundation

/// What a name looks like, for telling whether two names would pass for each other (a key named `Lеad` with
/// a Cyrillic е, or `Le​ad` with a zero-width space, against `Lead`): NFKC, case folding, invisible characters
/// removed, then UTS #39's skeleton (NFD, each character replaced by its prototype in Unicode's confusables
/// data, NFD again). Two names with the same skeleton are confusable.
public enum ConfusableSkeleton {
    /// The skeleton of `name`, case folded; surrounding white space does not count.
    public static func of(_ name: String) -> String {
        skeleton(name.precomposedStringWithCompatibilityMapping.folding(options: [.caseInsensitive], locale: nil))
    }

    /// Whether `first` and `second` would pass for each other; an empty name passes for nothing. Compared case
    /// folded (`Lead`, `LEAD`) and also as written, where a capital passes for a small letter of another
    /// script (`Іead`, with a Cyrillic І, for `lead`), which folding would have told apart.
    public static func confusable(_ first: String, _ second: String) -> Bool {
        let skeleton = of(first)
        guard !skeleton.isEmpty else { return false }
        if skeleton == of(second) { return true }
        let compatible = { (name: String) in Self.skeleton(name.precomposedStringWithCompatibilityMapping) }
        return compatible(first) == compatible(second)
    }

    /// UTS #39's skeleton of `text`, invisible characters removed.
    private static func skeleton(_ text: String) -> String {
        var visible = String.UnicodeScalarView()
        for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars {
            // Default_Ignorable_Code_Point: zero-width spaces and joiners, bidirectional marks, variation
            // selectors, soft hyphens: drawn as nothing.
            if scalar.properties.isDefaultIgnorableCodePoint { continue }
            if let prototype = prototypes[scalar.value] {
                visible.append(contentsOf: prototype)
            } else {
                visible.append(scalar)
            }
        }
        return String(visible).decomposedStringWithCanonicalMapping
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `confusablesTable` read once: each source scalar's prototype.
    static let prototypes: [UInt32: [Unicode.Scalar]] = {
        var table: [UInt32: [Unicode.Scalar]] = [:]
        table.reserveCapacity(6400)
        for line in confusablesTable {
            for entry in line.split(separator: ",") {
                let parts = entry.split(separator: ">")
                guard parts.count == 2, let source = UInt32(parts[0], radix: 16) else { continue }
                table[source] = parts[1].split(separator: " ").compactMap {
                    UInt32($0, radix: 16).flatMap(Unicode.Scalar.init)
                }
            }
        }
        return table
    }()
}
