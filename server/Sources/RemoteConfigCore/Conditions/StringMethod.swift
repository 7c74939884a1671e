import Foundation

/// The string methods: `.contains([…])`, `.notContains([…])`, `.exactlyMatches([…])`, `.matches([…])`.
public enum StringMethod: String, Sendable, Hashable, CaseIterable {
    case contains
    case notContains
    case exactlyMatches
    case matches
}
