import Foundation
import HTTPTypes
import PostgresNIO
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport

/// What the rollout tests share: `shop-app` with a BOOLEAN `new_checkout` (default false) and a STRING
/// `banner`, a client key, rollout calls decoded into the API's own types, and a way to make a step due now.
enum RolloutFixture {
    static let base = "/v1/projects/shop-app/rollouts"
    /// 1%, 10%, 50% and 100%, each held an hour: tests move it on step by step with `makeDue`.
    static let heldSteps: [RolloutStep] = [
        .init(percent: 1, holdSeconds: 3600), .init(percent: 10, holdSeconds: 3600),
        .init(percent: 50, holdSeconds: 3600), .init(percent: 100),
    ]

    /// The template every test starts from (version 1).
    static var template: JSONValue {
        [
            "conditions": [["name": "ios", "expression": "device.os == 'ios'"]],
            "parameters": [
                "new_checkout": ["defaultValue": ["value": "false"], "valueType": "BOOLEAN"],
                "banner": ["defaultValue": ["value": "hello"], "conditionalValues": ["ios": ["value": "hello iOS"]]],
            ],
        ]
    }

    /// Creates `shop-app`, publishes `template` and returns a client key.
    static func setUp(_ app: TestApp.Session) async throws -> String {
        try await app.createProject("shop-app")
        let published = try await app.publish("shop-app", template)
        try SetupFailure.unless(published.status == 200, "could not publish: \(published.text)")
        return try await app.createKey(role: "client", project: "shop-app").secret
    }

    /// `POST …/rollouts` giving `new_checkout` the value `true`.
    static func create(
        _ app: TestApp.Session, steps: [RolloutStep], audience: String? = nil, value: String = "true",
        token: String = TestApp.adminToken
    ) async throws -> TestApp.Reply {
        let body = RolloutCreate(
            parameter: "new_checkout", value: value, audience: audience, steps: steps, description: "new checkout")
        return try await app.call(.post, base, token: token, body: body)
    }

    /// Creates a rollout that must succeed and returns it.
    static func start(
        _ app: TestApp.Session, steps: [RolloutStep], audience: String? = nil, token: String = TestApp.adminToken
    ) async throws -> Rollout {
        let reply = try await create(app, steps: steps, audience: audience, token: token)
        try SetupFailure.unless(reply.status == 201, "could not create the rollout: \(reply.text)")
        return try decode(reply)
    }

    static func decode(_ reply: TestApp.Reply) throws -> Rollout {
        try reply.decode(Rollout.self)
    }

    /// `<id>` of `rollouts/<id>`.
    static func id(_ rollout: Rollout) -> String { String(rollout.name.dropFirst("rollouts/".count)) }

    static func get(_ app: TestApp.Session, _ rollout: Rollout) async throws -> Rollout {
        let reply = try await app.call(.get, "\(base)/\(id(rollout))")
        try SetupFailure.unless(reply.status == 200, "could not read the rollout: \(reply.text)")
        return try decode(reply)
    }

    /// `POST …/rollouts/{id}:<action>` as `token`'s key.
    static func act(
        _ app: TestApp.Session, _ rollout: Rollout, _ action: String, token: String = TestApp.adminToken
    ) async throws -> TestApp.Reply {
        try await app.call(.post, "\(base)/\(id(rollout)):\(action)", token: token, json: [:])
    }

    /// The published template of `shop-app`.
    static func published(_ app: TestApp.Session) async throws -> JSONValue {
        try await app.call(.get, "/v1/projects/shop-app/remoteConfig").value
    }

    /// The names of a template's conditions, in order.
    static func conditionNames(_ template: JSONValue) -> [String] {
        (template["conditions"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue }
    }

    /// The versions of `shop-app`, newest first.
    static func versions(_ app: TestApp.Session) async throws -> [JSONValue] {
        let reply = try await app.call(.get, "/v1/projects/shop-app/remoteConfig:listVersions")
        return reply.value["versions"]?.arrayValue ?? []
    }

    /// The audit actions of `shop-app`, oldest first.
    static func actions(_ app: TestApp.Session) async throws -> [String] {
        let reply = try await app.call(.get, "/v1/projects/shop-app/auditLog?pageSize=1000")
        return try reply.decode(AuditLogPage.self).events.map(\.action).reversed()
    }

    /// Makes the rollout's next step due now, as if its hold were over (the scheduler then publishes it).
    static func makeDue(_ app: TestApp.Session, _ rollout: Rollout) async throws {
        try await execute(app, "UPDATE rollouts SET next_step_at = now() WHERE rollout_id = \(id(rollout))")
    }

    static func execute(_ app: TestApp.Session, _ sql: String) async throws {
        try await app.database.run { client in
            for try await _ in try await client.query(PostgresQuery(unsafeSQL: sql)) {}
        }
    }

    /// Waits (bounded) until the rollout has published `steps` steps; returns it as it is then.
    static func waitForSteps(
        _ app: TestApp.Session, _ rollout: Rollout, _ steps: Int, limit: Duration = .seconds(15)
    ) async throws -> Rollout {
        var current = rollout
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            current = try await get(app, rollout)
            if current.history.count >= steps { return current }
            try await Task.sleep(for: .milliseconds(50))
        }
        return current
    }

    /// What `new_checkout` is for the app instance `instance` (nil: not sent).
    static func value(_ app: TestApp.Session, key: String, instance: String, platform: String = "IOS") async throws
        -> String?
    {
        let reply = try await ClientCalls.fetch(
            app, key: key, ["appInstanceId": .string(instance), "platform": .string(platform)])
        return reply.value["entries"]?["new_checkout"]?.stringValue
    }

    /// `template` (its `version` dropped) with `banner` given the value `hidden` for condition `name`, and that
    /// condition defined with `expression` when one is given: how an editor would plant a value on a rollout's
    /// condition.
    static func withBannerValue(_ template: JSONValue, for name: String, defining expression: String? = nil)
        -> JSONValue
    {
        var object = template.objectValue ?? [:]
        object["version"] = nil
        if let expression {
            let conditions = object["conditions"]?.arrayValue ?? []
            object["conditions"] = .array(conditions + [["name": .string(name), "expression": .string(expression)]])
        }
        var parameters = object["parameters"]?.objectValue ?? [:]
        var banner = parameters["banner"]?.objectValue ?? [:]
        var values = banner["conditionalValues"]?.objectValue ?? [:]
        values[name] = ["value": "hidden"]
        banner["conditionalValues"] = .object(values)
        parameters["banner"] = .object(banner)
        object["parameters"] = .object(parameters)
        return .object(object)
    }

    /// Stores `template` as the next version of `shop-app` straight in the database, as a server from before
    /// rollout conditions were guarded could have published it, and tells the servers of it; returns its number.
    @discardableResult
    static func plant(_ app: TestApp.Session, _ template: JSONValue) async throws -> Int64 {
        var object = template.objectValue ?? [:]
        object["version"] = nil
        let json = JSONValue.object(object).jsonString
        let stored = try await app.database.run { client in
            let rows = try await client.query(
                """
                WITH next AS (
                    UPDATE projects SET latest_version = latest_version + 1 WHERE project_id = 'shop-app'
                    RETURNING latest_version
                )
                INSERT INTO template_versions (project_id, version_number, template, update_type)
                SELECT 'shop-app', latest_version, \(json)::json, 'FORCED_UPDATE' FROM next
                RETURNING version_number
                """)
            var planted: Int64?
            for try await number in rows.decode(Int64.self) { planted = number }
            return planted
        }
        try SetupFailure.unless(stored != nil, "could not plant a version")
        let number = stored ?? 0
        try await execute(app, "SELECT pg_notify('rc_events', 'publish shop-app \(number)')")
        return number
    }

    /// Whether the contract's bucket puts `instance` in the rollout's condition at `percent`.
    static func isIn(_ rollout: Rollout, instance: String, percent: Double) -> Bool {
        PercentBucket.bucket(seed: rollout.conditionName, appInstanceId: instance)
            <= UInt64(percent * Double(PercentBucket.bucketsPerPercent))
    }
}
