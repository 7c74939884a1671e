import HTTPTypes
import Hummingbird

/// Every route the API serves, recorded as it is added so that 405 answers, the OpenAPI check and
/// metrics all read one list.
public final class RouteTable: Sendable {
    /// One method on one path, in OpenAPI's `{param}` spelling.
    public struct Route: Sendable, Hashable, CustomStringConvertible {
        public let method: HTTPRequest.Method
        public let path: String
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

    func record(_ method: HTTPRequest.Method, _ path: String) {
        storage.routes.append(Route(method: method, path: path))
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

/// Adds routes to a router while recording them in a `RouteTable`.
struct Routes {
    let router: Router<AppRequestContext>
    let table: RouteTable

    func on(
        _ method: HTTPRequest.Method, _ path: String,
        use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response
    ) {
        table.record(method, path)
        router.on(RouterPath(path), method: method, use: handler)
    }

    func get(_ path: String, use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response) {
        on(.get, path, use: handler)
    }

    func post(_ path: String, use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response) {
        on(.post, path, use: handler)
    }

    func put(_ path: String, use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response) {
        on(.put, path, use: handler)
    }

    func delete(_ path: String, use handler: @escaping @Sendable (Request, AppRequestContext) async throws -> Response)
    {
        on(.delete, path, use: handler)
    }
}
