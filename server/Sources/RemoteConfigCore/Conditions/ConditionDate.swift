import Foundation

/// A date-time literal: the text and zone as written, and the instant they denote.
public struct ConditionDate: Sendable, Hashable {
    /// The local date-time text, e.g. `2026-12-01T00:00:00`.
    public var text: String
    /// The IANA zone, or `nil` for UTC.
    public var timeZone: String?
    /// The instant the text denotes in that zone.
    public var instant: Date

    /// Creates a date literal.
    public init(text: String, timeZone: String?, instant: Date) {
        self.text = text
        self.timeZone = timeZone
        self.instant = instant
    }
}
