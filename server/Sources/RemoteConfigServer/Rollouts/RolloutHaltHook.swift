import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigStore

/// The alert hook `POST /v1/rollouts/{id}:halt`: an error tracker's or a monitoring system's webhook halts a
/// rollout with the rollout's own halt token as its bearer token. The token opens this one route for this one
/// rollout; it is no API key, so every other route refuses it.
struct RolloutHaltHook {
    let rollouts: RolloutStore
    let publishing: Publishing

    /// How much of a body is read: monitoring tools send JSON or forms of any size, and none of it matters.
    static let bodyLimit = 64 * 1024

    func addRoutes(to routes: Routes) {
        routes.post("/v1/rollouts/{id}:halt", use: halt)
    }

    /// Halts the rollout and answers the version without its condition; a repeated call publishes nothing
    /// and answers the same version (unless the condition is in the published template again: then it is
    /// removed once more).
    @Sendable func halt(_ request: Request, context: AppRequestContext) async throws -> Response {
        guard let token = Self.bearer(request) else {
            throw APIError.unauthenticated("send the rollout's halt token as Authorization: Bearer rch_…")
        }
        let id = try RolloutsController.id(context)
        // Whatever the tool sent is read (up to a bound) and ignored, so it never decides anything.
        var read = 0
        for try await chunk in request.body {
            read += chunk.readableBytes
            if read >= Self.bodyLimit { break }
        }
        let change = try await rollouts.halt(id, token: token)
        if let version = change.version { await publishing.announce(version) }
        let version = change.version?.versionNumber ?? change.rollout.endVersion
        return try JSONResponse.make(
            RolloutHaltAnswer(
                name: RemoteConfigStore.Rollout.name(id), state: change.rollout.state.rawValue,
                versionNumber: version.map { String($0) }, published: change.version != nil))
    }

    /// The token of `Authorization: Bearer <token>`, when it looks like a halt token.
    static func bearer(_ request: Request) -> String? {
        guard let token = request.headers[.authorization].flatMap(BearerToken.token) else { return nil }
        return token.hasPrefix("rch_") && token.count <= 100 ? token : nil
    }
}
