import Foundation
import HTTPTypes
import RemoteConfigTestSupport
import Testing

/// `/console`: the web console's files, served from the binary without a key, with headers that allow only
/// the console's own scripts and forbid framing. What it does in a browser is `Tests/Browser/console_test.py`.
@Suite struct ConsoleTests {
    /// Every file of the console folder, as the browser asks for it.
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/RemoteConfigServer/Resources/console")

    static func expectSecurityHeaders(_ reply: TestApp.Reply, _ path: String) throws {
        let policy = try #require(reply.headers[HTTPField.Name("Content-Security-Policy")!], "\(path): no CSP")
        let directives = Dictionary(
            policy.split(separator: ";").map { directive -> (String, String) in
                let parts = directive.trimmingCharacters(in: .whitespaces).split(separator: " ", maxSplits: 1)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }, uniquingKeysWith: { first, _ in first })
        #expect(directives["default-src"] == "'self'", "\(path): \(policy)")
        #expect(directives["script-src"] == "'self'", "\(path): scripts from elsewhere or inline: \(policy)")
        #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"), "\(path): \(policy)")
        #expect(directives["frame-ancestors"] == "'none'", "\(path): \(policy)")
        #expect(reply.headers[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(path)")
        #expect(reply.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(path)")
        #expect(reply.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff", "\(path)")
    }

    @Test func servesThePageWithoutAKeyAndWithSecurityHeaders() async throws {
        try await TestApp.run { app in
            let page = try await app.call(.get, "/console", token: nil)
            #expect(page.status == 200)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains(#"<script type="module" src="/console/app.js"></script>"#))
            try Self.expectSecurityHeaders(page, "/console")
        }
    }

    @Test func servesEveryFileOfTheFolderWithItsTypeAndTheSameHeaders() async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.folder.path).sorted()
        #expect(names.contains("app.js") && names.contains("api.js") && names.contains("console.css"))
        try await TestApp.run { app in
            for name in names {
                let reply = try await app.call(.get, "/console/\(name)", token: nil)
                #expect(reply.status == 200, "\(name)")
                let expected = try Data(contentsOf: Self.folder.appendingPathComponent(name))
                #expect(reply.body == expected, "\(name) is not the repository's file")
                let type = reply.headers[.contentType] ?? ""
                switch (name as NSString).pathExtension {
                case "js": #expect(type == "text/javascript; charset=utf-8", "\(name)")
                case "css": #expect(type == "text/css; charset=utf-8", "\(name)")
                case "html": #expect(type == "text/html; charset=utf-8", "\(name)")
                default: Issue.record("\(name): a kind of file the console does not serve")
                }
                try Self.expectSecurityHeaders(reply, name)
                // A browser revalidates, and a matching ETag costs no body.
                let etag = try #require(reply.headers[.eTag])
                let again = try await app.call(.get, "/console/\(name)", token: nil, headers: [.ifNoneMatch: etag])
                #expect(again.status == 304 && again.body.isEmpty, "\(name)")
            }
        }
    }

    /// The policy forbids inline script; the page must not need any, or the console would not run.
    @Test func thePageHasNoInlineScriptOrStyleAttribute() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.folder.path) where name.hasSuffix(".html")
        {
            let html = try String(contentsOf: Self.folder.appendingPathComponent(name), encoding: .utf8)
            for match in html.matches(of: /<script([^>]*)>/) {
                #expect(match.1.contains("src="), "\(name): an inline <script>")
            }
            #expect(html.firstMatch(of: /\son[a-z]+=/) == nil, "\(name): an inline event handler")
            #expect(html.firstMatch(of: /\sstyle=/) == nil, "\(name): an inline style attribute")
        }
    }

    @Test func anUnknownFileIsANotFoundInTheAPIShape() async throws {
        try await TestApp.run { app in
            for path in ["/console/nope.js", "/console/..%2Fopenapi.yaml", "/console/openapi.yaml"] {
                let reply = try await app.call(.get, path, token: nil)
                #expect(reply.status == 404, "\(path)")
                #expect(reply.errorStatus == "NOT_FOUND", "\(path)")
            }
            let posted = try await app.call(.post, "/console", token: nil)
            #expect(posted.status == 405)
        }
    }
}
