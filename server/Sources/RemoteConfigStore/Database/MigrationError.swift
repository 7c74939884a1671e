import Foundation

/// Why migrations could not be applied.
public struct MigrationError: Error, CustomStringConvertible {
    public let description: String
}
