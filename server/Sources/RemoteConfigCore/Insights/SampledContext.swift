import Foundation

/// A sampled instance's context as stored for impact estimates: the fetch body's shape, with only what
/// conditions read (no user properties, no time zone), every text capped.
public struct SampledContext: Sendable, Codable, Equatable {
    public var appInstanceId: String
    public var appId: String?
    public var platform: String?
    public var appVersion: String?
    public var appBuild: String?
    public var countryCode: String?
    public var languageCode: String?
    /// RFC 3339.
    public var firstOpenTime: String?
    public var customSignals: [String: SignalValue]?

    /// Longest text kept (fetch bodies are checked to this already; stored rows stay bounded regardless).
    public static let maximumText = 256
    /// Most custom signals kept.
    public static let maximumSignals = 100

    /// What is kept of `context`; nil without an instance id.
    public init?(_ context: FetchContext) {
        guard let instance = context.appInstanceId else { return nil }
        func cap(_ text: String?) -> String? { text.map { String($0.prefix(Self.maximumText)) } }
        appInstanceId = String(instance.prefix(Self.maximumText))
        appId = cap(context.appId)
        platform = context.platform?.rawValue
        appVersion = cap(context.appVersion)
        appBuild = cap(context.appBuild)
        countryCode = cap(context.countryCode)
        languageCode = cap(context.languageCode)
        firstOpenTime = context.firstOpenTime.map {
            $0.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        }
        if !context.customSignals.isEmpty {
            var signals: [String: SignalValue] = [:]
            for key in context.customSignals.keys.sorted().prefix(Self.maximumSignals) {
                guard case .string(let text)? = context.customSignals[key] else {
                    signals[String(key.prefix(Self.maximumText))] = context.customSignals[key]
                    continue
                }
                signals[String(key.prefix(Self.maximumText))] = .string(String(text.prefix(Self.maximumText)))
            }
            customSignals = signals
        }
    }
}
