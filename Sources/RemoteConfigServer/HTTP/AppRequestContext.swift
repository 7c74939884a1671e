import Hummingbird
import Logging

/// The per-request context of the API: Hummingbird's core storage and our body limit.
public struct AppRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }

    /// Request bodies larger than 1 MiB get 413 (API.md, Conventions).
    public var maxUploadSize: Int { 1 << 20 }
}
