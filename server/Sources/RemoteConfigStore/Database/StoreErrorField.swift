/// The request field a store error is about, with the reason an API error detail gives for it.
public struct StoreErrorField: Sendable, Equatable {
    public let name: String
    public let reason: String

    public init(name: String, reason: String) {
        self.name = name
        self.reason = reason
    }
}
