import Foundation
import NIOSSL
import PostgresNIO

/// A PostgreSQL connection URL in the forms libpq accepts, turned into PostgresNIO settings.
///
/// Supported: `postgres://` and `postgresql://`, user and password (percent-encoded), host and port,
/// database, `?host=/socket/dir` (a unix socket directory, as libpq), `?sslmode=disable|allow|prefer|require|verify-ca|verify-full`,
/// `?user=`, `?password=`, `?dbname=`, `?port=`.
public struct DatabaseURL: Sendable, CustomStringConvertible {
    /// Where the server listens.
    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        /// The socket file, `DIR/.s.PGSQL.PORT`.
        case unixSocket(path: String)
    }

    /// TLS policy, as libpq's `sslmode`.
    public enum SSLMode: String, Sendable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var endpoint: Endpoint
    public var username: String
    public var password: String?
    public var database: String
    public var sslMode: SSLMode

    /// Why a URL could not be used.
    public struct ParseError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Parses `text`; throws a `ParseError` naming what is wrong.
    public init(_ text: String) throws {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw ParseError(description: "not a postgres:// URL")
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            query[item.name] = item.value ?? ""
        }
        let user = query["user"] ?? components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? "postgres"
        self.username = user.isEmpty ? "postgres" : user
        self.password = query["password"] ?? components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        var path = components.percentEncodedPath.removingPercentEncoding ?? ""
        if path.hasPrefix("/") { path.removeFirst() }
        self.database = query["dbname"] ?? (path.isEmpty ? self.username : path)
        var port = components.port ?? 5432
        if let text = query["port"] {
            guard let value = Int(text) else { throw ParseError(description: "port \(text) is not a number") }
            port = value
        }
        guard (1...65535).contains(port) else { throw ParseError(description: "port \(port) is out of range") }
        if let socketDirectory = query["host"], socketDirectory.hasPrefix("/") {
            self.endpoint = .unixSocket(path: "\(socketDirectory)/.s.PGSQL.\(port)")
        } else {
            let host = query["host"] ?? components.host ?? "localhost"
            self.endpoint = .tcp(host: host.isEmpty ? "localhost" : host, port: port)
        }
        let mode = query["sslmode"] ?? "prefer"
        guard let sslMode = SSLMode(rawValue: mode) else {
            throw ParseError(
                description: "sslmode \(mode) is not one of disable, allow, prefer, require, verify-ca, verify-full")
        }
        self.sslMode = sslMode
    }

    /// The URL of a unix-socket server in the `?host=` form, as written to `<data-dir>/database-url`.
    public static func unixSocket(directory: String, port: Int = 5432, username: String, database: String) -> String {
        "postgres://\(username)@localhost:\(port)/\(database)?host=\(directory)"
    }

    /// The settings for PostgresNIO's pooled client.
    public func clientConfiguration() -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        switch endpoint {
        case .unixSocket(let path):
            configuration = .init(unixSocketPath: path, username: username, password: password, database: database)
        case .tcp(let host, let port):
            let tls = tlsConfiguration()
            let mode: PostgresClient.Configuration.TLS =
                switch sslMode {
                case .disable: .disable
                case .allow, .prefer: .prefer(tls)
                case .require, .verifyCA, .verifyFull: .require(tls)
                }
            configuration = .init(
                host: host, port: port, username: username, password: password, database: database, tls: mode)
        }
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    /// The settings for one standalone connection (migrations, start-up checks, LISTEN).
    public func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        switch endpoint {
        case .unixSocket(let path):
            configuration = .init(unixSocketPath: path, username: username, password: password, database: database)
        case .tcp(let host, let port):
            let mode: PostgresConnection.Configuration.TLS
            switch sslMode {
            case .disable: mode = .disable
            case .allow, .prefer: mode = .prefer(try NIOSSLContext(configuration: tlsConfiguration()))
            case .require, .verifyCA, .verifyFull: mode = .require(try NIOSSLContext(configuration: tlsConfiguration()))
            }
            configuration = .init(
                host: host, port: port, username: username, password: password, database: database, tls: mode)
        }
        return configuration
    }

    private func tlsConfiguration() -> TLSConfiguration {
        var tls = TLSConfiguration.makeClientConfiguration()
        switch sslMode {
        case .require, .allow, .prefer:
            // libpq's `require` encrypts without checking the certificate.
            tls.certificateVerification = .none
        case .verifyCA:
            tls.certificateVerification = .noHostnameVerification
        case .verifyFull, .disable:
            break
        }
        return tls
    }

    /// The URL without its password, safe for logs and error messages.
    public var description: String {
        switch endpoint {
        case .tcp(let host, let port): "postgres://\(username)@\(host):\(port)/\(database)"
        case .unixSocket(let path): "postgres://\(username)@localhost/\(database) (socket \(path))"
        }
    }
}
