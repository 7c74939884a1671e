import Foundation
import RemoteConfigServer
import RemoteConfigTestSupport
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

    /// The query parameters of each `METHOD /path` of the spec (`- name:` followed by `in: query` in an operation),
    /// and whether the operation documents a 400.
    static func specQueries(_ text: String) -> [String: (query: Set<String>, has400: Bool)] {
        var result: [String: (query: Set<String>, has400: Bool)] = [:]
        var path: String?
        var operation: String?
        var name: String?
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
                operation = nil
            } else if let match = line.wholeMatch(of: /\ {4}(get|put|post|delete|patch|head):/), let path {
                operation = "\(match.1.uppercased()) \(path)"
                result[operation!] = ([], false)
            } else if operation != nil, let match = line.wholeMatch(of: /\ {8}- name: (\S+)/) {
                name = String(match.1)
            } else if let operation, let current = name, line == "          in: query" {
                result[operation]?.query.insert(current)
                name = nil
            } else if let operation, line == "        \"400\":" {
                result[operation]?.has400 = true
            }
        }
        return result
    }

    /// Each route takes exactly the query parameters the spec lists, and every route documents the 400
    /// that an unknown query parameter gets.
    @Test func specAndRouterAgreeOnQueryParameters() async throws {
        let table = RouteTable()
        try await TestApp.run(routes: table) { _ in }
        let spec = Self.specQueries(OpenAPIDocument.text)
        for route in table.routes {
            let documented = try #require(spec[route.description], "\(route) is not in the spec")
            #expect(documented.query == route.query, "\(route): spec \(documented.query), router \(route.query)")
            #expect(documented.has400, "\(route) does not document 400")
        }
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

    /// A plain YAML scalar may not hold ": " or " #" (YAML reads a mapping or a comment there), which makes the
    /// whole file unreadable to OpenAPI tools; such values must be quoted or folded.
    @Test func everyPlainValueIsValidYAML() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("openapi.yaml")
        let text = try String(contentsOf: file, encoding: .utf8)
        var blockIndent: Int?  // inside a `|` or `>` block scalar begun at this indentation
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let indent = line.prefix { $0 == " " }.count
            if let outer = blockIndent, line.allSatisfy({ $0 == " " }) || indent > outer { continue }
            blockIndent = nil
            let body = line.drop(while: { $0 == " " || $0 == "-" })
            guard !body.hasPrefix("#"), let colon = body.range(of: ": ") else { continue }
            let value = body[colon.upperBound...]
            guard let first = value.first else { continue }
            if first == "|" || first == ">" { blockIndent = indent }
            guard !"'\"[{|>&*!".contains(first) else { continue }
            #expect(!value.contains(": ") && !value.contains(" #"), "openapi.yaml:\(number + 1): \(line)")
        }
    }
}
