import HTTPTypes
import Hummingbird

/// Every route the API serves, recorded as it is added so that 405 answers, the OpenAPI check and
/// metrics all read one list.
public final class RouteTable: Sendable {
    /// One method on one path, in OpenAPI's `{param}` spelling, with the query parameters it takes.
    public struct Route: Sendable, Hashable, CustomStringConvertible {
        public let method: HTTPRequest.Method
        public let path: String
        /// Every query parameter the route knows; any other one is refused with 400.
        public let query: Set<String>
        public var description: String { "\(method.rawValue) \(path)" }
    }

    private let storage: Storage
    private final class Storage: @unchecked Sendable {
        // Only mutated while the router is built, before the server starts; read-only afterwards.
        var routes: [Route] = []
    }

    public init() {
        self.storage = Storage()
    }

    /// The routes, in the order they were added.
    public var routes: [Route] { storage.routes }

    func record(_ method: HTTPRequest.Method, _ path: String, query: Set<String>) {
        storage.routes.append(Route(method: method, path: path, query: query))
    }

    /// The methods served on a concrete request path, for the `Allow` header of a 405.
    func methods(matching requestPath: String) -> [HTTPRequest.Method] {
        let segments = requestPath.split(separator: "/", omittingEmptySubsequences: true)
        return routes.filter { route in
            let pattern = route.path.split(separator: "/", omittingEmptySubsequences: true)
            guard pattern.count == segments.count else { return false }
            return zip(pattern, segments).allSatisfy { pattern, segment in
                (pattern.hasPrefix("{") && pattern.hasSuffix("}")) || pattern == segment
            }
        }.map(\.method)
    }
}

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

    func on(
        _ method: HTTPRequest.Method, _ path: String, query: Set<String> = [],
        use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        let allowed = query.union(sharedQuery)
        table.record(method, path, query: allowed)
        router.on(RouterPath(path), method: method) { request, context in
            // Before the handler, so a misspelt `validateOnly` never reaches the code that publishes.
            try QueryParameters.check(request.uri, allowed: allowed)
            return try await handler(request, context)
        }
    }

    /// Answers 405 for `method` on `path` without listing it as served (HEAD of a stream, which has no
    /// headers-only form; otherwise the router would generate one from GET).
    func refuse(_ method: HTTPRequest.Method, _ path: String) {
        let table = self.table
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

    func delete(
        _ path: String, query: Set<String> = [],
        use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        on(.delete, path, query: query, use: handler)
    }
}
