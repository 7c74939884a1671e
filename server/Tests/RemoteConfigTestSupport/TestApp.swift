import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigServer
import RemoteConfigStore

/// An in-process application on a database of its own, with a known admin token.
public struct TestApp {
    public static let adminToken = "rc_admin_testBootstrapToken0000000000000"
    /// The global admin key `Session.createKey` makes keys with (no key made it).
    public static let keyMakerToken = "rc_admin_testKeyMaker0000000000000000000"

    /// Runs `body` against a fresh application and database.
    @discardableResult
    public static func run<T: Sendable>(_ body: @Sendable (Session) async throws -> T) async throws -> T {
        try await run(routes: RouteTable(), body)
    }

    /// Runs `body` against a fresh application whose routes are recorded in `routes`.
    @discardableResult
    public static func run<T: Sendable>(routes: RouteTable, _ body: @Sendable (Session) async throws -> T) async throws
        -> T
    {
        try await run(url: try await TestCluster.shared.makeDatabase(), routes: routes, body)
    }

    /// Runs `body` against an application on the database at `url` (a second run is a restart), writing its
    /// access log to `accessLog` when given (the default is off, at the tests' `warning` level). Its secrets
    /// key is the suite's (`TestSecrets`) unless `secretsKey` is given; new rollouts draw their ids from
    /// `rolloutIDs`.
    @discardableResult
    public static func run<T: Sendable>(
        url: DatabaseURL, routes: RouteTable = RouteTable(), live: Bool = false,
        databaseDeadline: Duration = .seconds(5), accessLog: AccessLog? = nil,
        secretsKey: SecretSealer = TestSecrets.sealer, rolloutIDs: RolloutIDs = .random,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        environment adjust: (inout AppEnvironment) -> Void = { _ in }, _ body: @Sendable (Session) async throws -> T
    ) async throws -> T {
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        let database = Database(url: url, logger: logger, deadline: databaseDeadline, maximumConnections: 6)
        var configuration = ServerConfiguration()
        configuration.adminToken = adminToken
        configuration.dataDirectory = NSTemporaryDirectory() + "rc-app-\(UUID().uuidString)"
        configuration.port = 0
        // No test reaches the real App Store: a link synced by a test that set no fake store fails at once.
        configuration.storeLookupURL = "http://127.0.0.1:9/lookup"
        configuration.playTokenURL = "http://127.0.0.1:9/token"
        configuration.playAPIURL = "http://127.0.0.1:9"
        configure(&configuration)
        // As `serve` does before it builds the application.
        let secrets = try await TestSecrets.prepare(url, sealer: secretsKey)
        let stores = Stores(database: database, secrets: secrets, configuration: configuration, rolloutIDs: rolloutIDs)
        var adjusted = AppEnvironment(
            configuration: configuration, stores: stores, logger: logger, accessLog: accessLog)
        adjust(&adjusted)
        let environment = adjusted
        let app = PoolFirstApplication(
            base: buildApplication(environment, logger: logger, routes: routes),
            database: database)
        return try await app.test(live ? .live : .router) { client in
            try await body(
                Session(
                    client: client, database: database, streams: environment.streams,
                    clientKeys: environment.clientKeys, environment: environment))
        }
    }

    /// Runs `body` against an application listening on a real loopback port (streams need one).
    @discardableResult
    public static func live<T: Sendable>(
        accessLog: AccessLog? = nil, configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable (Session) async throws -> T
    ) async throws -> T {
        try await run(
            url: try await TestCluster.shared.makeDatabase(), live: true, accessLog: accessLog, configure: configure,
            body)
    }

    /// A client bound to one application, with JSON helpers.
    public struct Session: Sendable {
        public let client: any TestClientProtocol
        public let database: Database
        /// The application's realtime subscribers.
        public let streams: StreamHub
        /// The application's client keys in memory.
        public let clientKeys: ClientKeys
        /// Everything the application was built around (its heavy-work threads, insights' flush).
        public let environment: AppEnvironment
        /// The port of a live application.
        public var port: Int { client.port ?? 0 }

        /// Sends a request; `token` goes in `Authorization: Bearer`; `json` is sent as written (member order kept).
        @discardableResult
        public func call(
            _ method: HTTPRequest.Method, _ uri: String, token: String? = TestApp.adminToken,
            json: JSONValue? = nil, raw: ByteBuffer? = nil, headers: HTTPFields = [:]
        ) async throws -> Reply {
            var fields = headers
            if let token { fields[.authorization] = "Bearer \(token)" }
            var body = raw
            if let json {
                body = ByteBuffer(bytes: json.jsonBytes())
                fields[.contentType] = "application/json"
            }
            let response = try await client.execute(uri: uri, method: method, headers: fields, body: body)
            return Reply(
                status: Int(response.status.code), headers: response.headers, body: Data(buffer: response.body))
        }

        /// Sends `body`, one of the API's bodies, encoded as the server writes JSON (`APIEncoder`).
        @discardableResult
        public func call(
            _ method: HTTPRequest.Method, _ uri: String, token: String? = TestApp.adminToken, body: some Encodable,
            headers: HTTPFields = [:]
        ) async throws -> Reply {
            var fields = headers
            fields[.contentType] = "application/json"
            return try await call(
                method, uri, token: token, raw: ByteBuffer(bytes: try APIEncoder.bytes(body)), headers: fields)
        }

        /// Publishes `template` with `If-Match: *`; returns the reply.
        @discardableResult
        public func publish(_ project: String, _ template: JSONValue, ifMatch: String = "*") async throws -> Reply {
            try await call(.put, "/v1/projects/\(project)/remoteConfig", json: template, headers: [.ifMatch: ifMatch])
        }

        /// Creates a project as the bootstrap admin.
        public func createProject(_ id: String) async throws {
            do {
                try await admin.createProject(id, displayName: id.uppercased())
            } catch let failure as AdminCallFailure {
                throw SetupFailure(description: "could not create project \(id): \(failure.text)")
            }
        }

        /// Creates a key and returns its secret and id. The key is made by the suite's key maker, a global admin
        /// key of its own lineage, not by the admin token: a key counts as the identity of the key that made it,
        /// so keys the admin token made could neither approve the admin token's change requests nor have theirs
        /// approved by it. Tests of that rule make their keys with the key that is to make them.
        public func createKey(role: String, project: String? = nil, name: String? = nil) async throws -> (
            secret: String, id: String
        ) {
            do {
                try await database.ensureKeyMaker(token: TestApp.keyMakerToken)
                let key = try await admin.with(token: TestApp.keyMakerToken).createKey(
                    role: role, project: project, name: name)
                return (key.key ?? "", key.id)
            } catch let failure as AdminCallFailure {
                throw SetupFailure(description: "could not create key: \(failure.text)")
            }
        }
    }

    /// A response, read for assertions through `JSONReply` (`value`, `decode(_:)`, `errorStatus`, …).
    public struct Reply: Sendable, JSONReply {
        public let status: Int
        public let headers: HTTPFields
        public let body: Data

    }
}

/// A fresh migrated database for tests that start the application twice on it.
public enum TestClusterURL {
    public static func make() async throws -> DatabaseURL { try await TestCluster.shared.makeDatabase() }
}

/// A test's set-up call that the server refused (a slow database on a loaded machine, say): thrown, so that
/// one test fails with the server's answer instead of a precondition ending the whole test process.
public struct SetupFailure: Error, CustomStringConvertible {
    public let description: String

    /// Throws `description` unless `condition` holds.
    public static func unless(_ condition: Bool, _ description: @autoclosure () -> String) throws {
        if !condition { throw SetupFailure(description: description()) }
    }
}
