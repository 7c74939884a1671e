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
    /// Most bytes of custom signals kept (each key's UTF-8, and its value's, or 8 for a number): with the other
    /// fields' caps, a sampled context stays within about 3 KiB however much an app sends.
    public static let maximumSignalBytes = 1024

    /// What a sample keeps of `signals`: keys and texts cut to `maximumText`, the signals `reading` names first
    /// (what the published conditions read), then the others, each in key order while it fits within
    /// `maximumSignalBytes` and `maximumSignals`. Signals within the budget are all kept, whatever `reading` says.
    public static func kept(_ signals: [String: SignalValue], reading: Set<String> = []) -> [String: SignalValue] {
        var kept: [String: SignalValue] = [:]
        var bytes = 0
        let read = signals.keys.filter { reading.contains($0) }.sorted()
        let others = signals.keys.filter { !reading.contains($0) }.sorted()
        for key in read + others {
            guard kept.count < maximumSignals, let value = signals[key] else { break }
            let cutKey = String(key.prefix(maximumText))
            var cutValue = value
            var cost = cutKey.utf8.count + 8
            if case .string(let text) = value {
                let cut = String(text.prefix(maximumText))
                cutValue = .string(cut)
                cost = cutKey.utf8.count + cut.utf8.count
            }
            guard bytes + cost <= maximumSignalBytes else { continue }
            bytes += cost
            kept[cutKey] = cutValue
        }
        return kept
    }

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
        if !context.customSignals.isEmpty { customSignals = Self.kept(context.customSignals) }
    }
}
