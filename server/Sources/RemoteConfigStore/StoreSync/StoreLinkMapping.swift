import Foundation

/// One mapping of a store link: the STRING parameter `parameter` receives the store's field `field`.
public struct StoreLinkMapping: Sendable, Equatable, Codable {
    public let parameter: String
    public let field: String

    public init(parameter: String, field: String) {
        self.parameter = parameter
        self.field = field
    }
}
