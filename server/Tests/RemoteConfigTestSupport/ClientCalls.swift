import Foundation
import HTTPTypes
import RemoteConfigCore
import RemoteConfigServer

/// What the client routes' tests share: `shop-app`'s fetch and stream paths, a fetch through the test
/// client or as raw bytes, a live shop with a client key, and a one-parameter publish.
public enum ClientCalls {
    /// `shop-app`'s fetch route.
    public static let fetchPath = "/v1/projects/shop-app/remoteConfig:fetch"
    /// `shop-app`'s stream route.
    public static let streamPath = "/v1/projects/shop-app/remoteConfig:stream"

    /// Sends a fetch with a client key (none: no `X-API-Key`).
    public static func fetch(
        _ app: TestApp.Session, key: String?, _ body: JSONValue, ifNoneMatch: String? = nil,
        path: String = fetchPath
    ) async throws -> TestApp.Reply {
        var headers = HTTPFields()
        if let key { headers[HTTPField.Name("X-API-Key")!] = key }
        if let ifNoneMatch { headers[.ifNoneMatch] = ifNoneMatch }
        return try await app.call(.post, path, token: nil, json: body, headers: headers)
    }

    /// The fetch body of an iOS app at `version`.
    public static func iosBody(_ version: String) -> JSONValue {
        ["appInstanceId": "install-1", "platform": "IOS", "appVersion": .string(version)]
    }

    /// A raw HTTP/1.1 fetch request for `shop-app`.
    public static func fetchRequest(
        key: String, body: String = #"{"appInstanceId":"i-1","platform":"IOS"}"#, extra: String = ""
    ) -> String {
        "POST \(fetchPath) HTTP/1.1\r\nHost: t\r\nX-API-Key: \(key)\r\nContent-Type: application/json\r\n\(extra)"
            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"
    }

    /// A live application with `shop-app`, a force-update template and a client key.
    public static func withShop(
        configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: @Sendable @escaping (TestApp.Session, String) async throws -> Void
    ) async throws {
        try await TestApp.live(configure: configure) { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            let key = try await app.createKey(role: "client", project: "shop-app")
            try await body(app, key.secret)
        }
    }

    /// Publishes `shop-app` with one parameter, `current_version` = `value`.
    public static func publish(_ app: TestApp.Session, _ value: String) async throws {
        let reply = try await app.publish(
            "shop-app", ["parameters": ["current_version": ["defaultValue": ["value": .string(value)]]]])
        try SetupFailure.unless(reply.status == 200, "could not publish shop-app: \(reply.text)")
    }

    /// A configuration with this keep-alive interval on streams.
    public static func keepAlive(_ interval: Duration) -> (inout ServerConfiguration) -> Void {
        { $0.streamKeepAliveInterval = interval }
    }
}
