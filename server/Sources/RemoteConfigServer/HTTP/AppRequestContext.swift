import Hummingbird
import Logging
import NIOCore
import RemoteConfigCore

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

extension AppRequestContext {
    /// The route's `{p}`: 404 when it is not a valid `ProjectID`, as for a project that does not exist (no
    /// project can have such an id), before anything else is read.
    func projectID() throws -> ProjectID {
        let text = try parameters.require("p")
        guard let id = ProjectID(text) else { throw APIError.notFound("project \(text) not found") }
        return id
    }
}
