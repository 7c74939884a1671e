import NIOCore

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
