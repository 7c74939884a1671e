import HTTPTypes
import Hummingbird

/// Adds routes to a router while recording them in a `RouteTable`. Every route names the query parameters
/// it takes, and a request with another one, or one of them twice, is refused before its handler runs.
struct Routes {
    let router: Router<AppRequestContext>
    let table: RouteTable
    /// Query parameters every route added through this value takes besides its own (`key` on client routes).
    var sharedQuery: Set<String> = []

    /// The same router, for routes that all take `names` too.
    func accepting(_ names: Set<String>) -> Routes {
        var copy = self
        copy.sharedQuery.formUnion(names)
        return copy
    }

    /// `strict: false` lets other query parameters through: only for a route that someone else's server
    /// redirects to (the sign-in callback, where providers add their own, such as `session_state`).
    func on(
        _ method: HTTPRequest.Method, _ path: String, query: Set<String> = [], strict: Bool = true,
        use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        let allowed = query.union(sharedQuery)
        table.recordQuery(method, path, query: allowed)
        router.on(RouterPath(path), method: method) { request, context in
            // Before the handler, so a misspelt `validateOnly` never reaches the code that publishes.
            if strict {
                try QueryParameters.check(request.uri, allowed: allowed)
            } else {
                try QueryParameters.checkRepeats(request.uri.query.map { Substring($0) })
            }
            return try await handler(request, context)
        }
    }

    /// Answers 405 for `method` on `path` without listing it as served (HEAD of a stream, which has no
    /// headers-only form; otherwise the router would generate one from GET).
    func refuse(_ method: HTTPRequest.Method, _ path: String) {
        let table = self.table
        table.recordRefusal(method, path)
        router.on(RouterPath(path), method: method) { request, _ -> Response in
            throw APIError.methodNotAllowed(request, allowed: table.methods(matching: request.uri.path))
        }
    }

    func get(
        _ path: String, query: Set<String> = [],
        use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        on(.get, path, query: query, use: handler)
    }

    func post(
        _ path: String, query: Set<String> = [],
        use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        on(.post, path, query: query, use: handler)
    }

    func put(
        _ path: String, query: Set<String> = [],
        use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        on(.put, path, query: query, use: handler)
    }

    func patch(
        _ path: String, query: Set<String> = [],
        use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        on(.patch, path, query: query, use: handler)
    }

    func delete(
        _ path: String, query: Set<String> = [],
        use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        on(.delete, path, query: query, use: handler)
    }
}
