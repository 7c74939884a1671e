import Foundation

/// How an attempt ended.
public struct DeliveryOutcome: Sendable {
    public var status: Int?
    public var error: String?
    public var delivered: Bool

    public init(status: Int?, error: String?, delivered: Bool) {
        self.status = status
        self.error = error
        self.delivered = delivered
    }
}
