import RemoteConfigCore
import Testing

/// Names that would pass for each other on screen have one skeleton (UTS #39, after NFKC, case folding and
/// with invisible characters removed); names that only share letters do not.
@Suite struct ConfusableSkeletonTests {
    @Test(arguments: [
        "L\u{0435}ad",  // Cyrillic е
        "Le\u{200B}ad",  // zero-width space
        "Le\u{2060}ad",  // word joiner
        "\u{200F}Lead",  // right-to-left mark
        "Le\u{00AD}ad",  // soft hyphen
        "\u{FF2C}\u{FF45}\u{FF41}\u{FF44}",  // fullwidth
        "LEAD", " lead ",
        "\u{216C}ead",  // Roman numeral fifty
    ])
    func looksLikeLead(_ name: String) {
        #expect(ConfusableSkeleton.confusable(name, "Lead"), "\(name.unicodeScalars.map(\.value))")
    }

    /// A capital that passes for a small letter of another name: Cyrillic І (and Latin I) for l.
    @Test func aCapitalPassesForASmallLetter() {
        #expect(ConfusableSkeleton.confusable("\u{0406}ead", "lead"))
        #expect(ConfusableSkeleton.confusable("Iead", "lead"))
    }

    @Test(arguments: ["Leah", "Lad", "Load", "Leader", ""])
    func isNotLead(_ name: String) {
        #expect(!ConfusableSkeleton.confusable(name, "Lead"))
    }

    @Test func anEmptyOrInvisibleNamePassesForNothing() {
        #expect(!ConfusableSkeleton.confusable("", ""))
        #expect(!ConfusableSkeleton.confusable("\u{200B}", "\u{200B}"))
    }
}
