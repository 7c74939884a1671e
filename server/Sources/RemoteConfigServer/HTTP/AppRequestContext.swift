import Hummingbird
import Logging
import NIOCore

/// The per-request context of the API: Hummingbird's core storage, the connection and our body limit.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connection the request came on; a stream closes it when its client is gone or stalled.
    public let channel: any Channel
    /// This request's `X-Request-Id` (`RequestIDMiddleware`).
    public var requestID = ""

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// Request bodies larger than 1 MiB get 413 (API.md, Conventions).
    public var maxUploadSize: Int { 1 << 20 }
}
