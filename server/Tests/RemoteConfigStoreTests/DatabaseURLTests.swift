import RemoteConfigStore
import Testing

@Suite struct DatabaseURLTests {
    @Test func tcpURLWithEverything() throws {
        let url = try DatabaseURL("postgres://app:s%40cret@db.example:6543/config?sslmode=require")
        #expect(url.endpoint == .tcp(host: "db.example", port: 6543))
        #expect(url.username == "app")
        #expect(url.password == "s@cret")
        #expect(url.database == "config")
        #expect(url.sslMode == .require)
        #expect(!url.description.contains("s@cret"))
    }

    @Test func unixSocketInTheHostQuery() throws {
        let url = try DatabaseURL("postgres://postgres@localhost:5432/remote_config?host=/tmp/sock")
        #expect(url.endpoint == .unixSocket(path: "/tmp/sock/.s.PGSQL.5432"))
        #expect(url.database == "remote_config")
    }

    @Test func defaultsFollowLibpq() throws {
        let url = try DatabaseURL("postgresql://me@localhost")
        #expect(url.endpoint == .tcp(host: "localhost", port: 5432))
        #expect(url.database == "me")
        #expect(url.sslMode == .prefer)
    }

    @Test(arguments: ["mysql://x@y/z", "not a url", "postgres://x@y:70000/z", "postgres://x@y/z?sslmode=maybe"])
    func unusableURLsAreRejected(_ text: String) {
        #expect(throws: DatabaseURL.ParseError.self) { try DatabaseURL(text) }
    }
}
