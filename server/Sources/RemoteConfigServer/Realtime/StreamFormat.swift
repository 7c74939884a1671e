import NIOCore

/// How a stream writes its events: this API's own (`event: version`), or the OpenFeature Remote Evaluation
/// Protocol's (`format=ofrep`), which OFREP providers open from a bulk answer's `eventStreams`.
enum StreamFormat: Sendable, Equatable {
    case remoteConfig
    /// `event: message` and `data: {"type": "refetchEvaluation", …}`: OFREP providers act on that type only,
    /// and a browser's `EventSource` hands a provider's `message` listener only events called `message`.
    case ofrep

    /// The `format` query parameter's value, when it names one (absent means `remoteConfig`).
    init?(query value: String?) {
        switch value {
        case nil: self = .remoteConfig
        case "ofrep"?: self = .ofrep
        default: return nil
        }
    }

    /// The event announcing `version`.
    func event(_ version: Int64) -> String {
        switch self {
        case .remoteConfig:
            "event: version\nid: \(version)\ndata: {\"latestTemplateVersionNumber\": \"\(version)\"}\n\n"
        case .ofrep:
            "event: message\nid: \(version)\ndata: {\"type\": \"refetchEvaluation\", \"latestTemplateVersionNumber\": "
                + "\"\(version)\"}\n\n"
        }
    }
}
