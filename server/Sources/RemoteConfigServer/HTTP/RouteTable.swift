import HTTPTypes
import Hummingbird

/// Every route the API serves, as Hummingbird's router lists them (405 answers, the OpenAPI check and the
/// auth matrix read this), with the query parameters each takes, which the router does not know.
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
        var queries: [String: Set<String>] = [:]
        /// Method and path pairs the router answers only to refuse (405), which are not served.
        var refused: Set<String> = []
        var routes: [Route] = []
    }

    public init() {
        self.storage = Storage()
    }

    /// The routes the router serves (empty until `serve(from:)`).
    public var routes: [Route] { storage.routes }

    /// Takes the route list from `router`, once every route is added to it.
    func serve(from router: Router<AppRequestContext>) {
        storage.routes = router.routes.compactMap { route -> Route? in
            let key = "\(route.method.rawValue) \(route.path.description)"
            guard !storage.refused.contains(key) else { return nil }
            return Route(method: route.method, path: route.path.description, query: storage.queries[key] ?? [])
        }
    }

    func recordQuery(_ method: HTTPRequest.Method, _ path: String, query: Set<String>) {
        storage.queries["\(method.rawValue) \(path)"] = query
    }

    func recordRefusal(_ method: HTTPRequest.Method, _ path: String) {
        storage.refused.insert("\(method.rawValue) \(path)")
    }

    /// The methods served on a concrete request path, for the `Allow` header of a 405: those of the most
    /// specific pattern that matches, as the router picks it (`{id}:approve` before `{id}`).
    func methods(matching requestPath: String) -> [HTTPRequest.Method] {
        let segments = requestPath.split(separator: "/", omittingEmptySubsequences: true)
        let matches = routes.compactMap { route -> (HTTPRequest.Method, Int)? in
            let pattern = route.path.split(separator: "/", omittingEmptySubsequences: true)
            guard pattern.count == segments.count else { return nil }
            var specific = 0
            for (pattern, segment) in zip(pattern, segments) {
                guard pattern.hasPrefix("{"), let close = pattern.firstIndex(of: "}") else {
                    guard pattern == segment else { return nil }
                    specific += 1
                    continue
                }
                // `{id}` matches any segment, `{id}:approve` one that ends with `:approve`.
                let suffix = pattern[pattern.index(after: close)...]
                guard segment.hasSuffix(suffix), segment.count > suffix.count else { return nil }
                if !suffix.isEmpty { specific += 1 }
            }
            return (route.method, specific)
        }
        let best = matches.map(\.1).max()
        return matches.filter { $0.1 == best }.map(\.0)
    }
}
