import Foundation
import RemoteConfigServer
import Testing

/// `openapi.yaml` and the router describe the same set of routes, and the server serves the file.
@Suite struct OpenAPITests {
    /// `METHOD /path` pairs of the spec, read from its layout: two-space path keys, four-space methods.
    static func specRoutes(_ text: String) -> Set<String> {
        var routes: Set<String> = []
        var path: String?
        var inPaths = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == "paths:" {
                inPaths = true
                continue
            }
            if inPaths, let first = line.first, first != " " { inPaths = false }
            guard inPaths else { continue }
            if let match = line.wholeMatch(of: /\ \ (\/[^ ]*):/) {
                path = String(match.1)
            } else if let match = line.wholeMatch(of: /\ {4}(get|put|post|delete|patch|head):/), let path {
                routes.insert("\(match.1.uppercased()) \(path)")
            }
        }
        return routes
    }

    @Test func specAndRouterAgree() async throws {
        let table = RouteTable()
        try await TestApp.run(routes: table) { app in
            let served = try await app.call(.get, "/openapi.yaml", token: nil)
            #expect(served.status == 200)
            let spec = Self.specRoutes(served.text)
            let router = Set(table.routes.map(\.description))
            #expect(spec.subtracting(router).isEmpty, "in the spec but not served: \(spec.subtracting(router))")
            #expect(router.subtracting(spec).isEmpty, "served but not in the spec: \(router.subtracting(spec))")
            // The served document is the repository's file.
            let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("openapi.yaml")
            #expect(served.text == (try String(contentsOf: file, encoding: .utf8)))
        }
    }
}
