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

/// One event as each format writes it, encoded once per publish for every stream.
struct StreamEventBytes: Sendable {
    let remoteConfig: ByteBuffer
    let ofrep: ByteBuffer

    /// The same bytes for every format (a keep-alive comment).
    init(both: ByteBuffer) {
        remoteConfig = both
        ofrep = both
    }

    /// `version`'s event in each format, as chunks.
    init(version: Int64) {
        remoteConfig = StreamResponse.chunk(StreamFormat.remoteConfig.event(version))
        ofrep = StreamResponse.chunk(StreamFormat.ofrep.event(version))
    }

    subscript(format: StreamFormat) -> ByteBuffer {
        switch format {
        case .remoteConfig: remoteConfig
        case .ofrep: ofrep
        }
    }
}
