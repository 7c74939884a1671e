import Foundation
import HTTPTypes
import PostgresNIO
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// Scheduled publishes: published once when due and approved, by whichever server sharing the database gets
/// there first, within a second of the time; a server started after a missed time publishes it at once.
@Suite struct ScheduledPublishTests {
    /// The RFC 3339 time `seconds` from now.
    static func later(_ seconds: Double) -> Date { Date().addingTimeInterval(seconds) }

    /// Waits (on the wall clock, which the database shares) until `date` has passed.
    static func waitUntil(_ date: Date) async throws {
        while Date() < date { try await Task.sleep(for: .milliseconds(50)) }
    }

    /// Runs `sql` on the database of `url` (to move a publish time while no server runs).
    static func execute(_ sql: String, on url: DatabaseURL) async throws {
        try await withRunningDatabase(url: url) { database in
            try await database.run { client in
                for try await _ in try await client.query(PostgresQuery(unsafeSQL: sql)) {}
            }
        }
    }

    @Test func twoServersOnOneDatabasePublishAScheduleExactlyOnce() async throws {
        let url = try await TestClusterURL.make()
        let projects = ["shop-app", "games-app", "news-app"]
        try await TestApp.run(url: url) { one in
            try await TestApp.run(url: url) { two in
                var clients: [String: String] = [:]
                var dueTimes: [String: Date] = [:]
                let publishTime = Self.later(3)
                for project in projects {
                    try await one.createProject(project)
                    let patched = try await one.call(
                        .patch, "/v1/projects/\(project)", json: ["requireApproval": true])
                    #expect(patched.status == 200)
                    let author = try await one.createKey(role: "editor", project: project)
                    let created = try await one.call(
                        .post, "/v1/projects/\(project)/remoteConfig/changeRequests", token: author.secret,
                        body: CreateChangeRequestRequest(
                            description: "release day",
                            template: TemplateFixtures.forceUpdateValue(currentVersion: "4.0.0"),
                            publishTime: Workflow.timestamp(publishTime)))
                    #expect(try created.changeRequest.state == "OPEN", "not approved yet: \(created.text)")
                    let approved = try await two.call(
                        .post, "/v1/projects/\(project)/remoteConfig/changeRequests/\(Workflow.id(created)):approve",
                        body: ReviewRequest())
                    // On a loaded machine the set-up may outlast the time: then it is due when approved.
                    let expected = Date() < publishTime ? "SCHEDULED" : "PUBLISHED"
                    let answer = try approved.changeRequest
                    #expect(answer.state == "SCHEDULED" || answer.state == expected, "\(approved.text)")
                    dueTimes[project] = max(publishTime, try #require(answer.approvals.first?.time))
                    clients[project] = try await one.createKey(role: "client", project: project).secret
                }
                for project in projects {
                    let published = try await Workflow.eventually {
                        try await Workflow.versions(one, project: project).count >= 1
                    }
                    #expect(published, "\(project) was not published")
                }
                // Both servers were woken by the approvals and looked again: a second publish would be done by now.
                try await Self.waitUntil(publishTime.addingTimeInterval(2))
                for project in projects {
                    let versions = try await Workflow.versions(two, project: project)
                    #expect(versions.count == 1, "\(project) has \(versions.count) versions")
                    let version = try #require(versions.first)
                    #expect(version["updateOrigin"] == "CHANGE_REQUEST")
                    #expect(version["description"] == "release day")
                    // Read as the approval time was (RFC 3339 with milliseconds), so the two compare exactly.
                    let time = try APIDecoder.decode(Date.self, from: try #require(version["updateTime"]))
                    let late = time.timeIntervalSince(try #require(dueTimes[project]))
                    #expect(late >= -0.01 && late < 1, "\(project) published \(late) s after its time")
                    print("\(project): scheduled publish \(Int(late * 1000)) ms after it was due")
                    let log = try await one.call(.get, "/v1/projects/\(project)/auditLog")
                    let publishes = (log.value["events"]?.arrayValue ?? []).filter {
                        $0["action"] == "changeRequest.publish"
                    }
                    #expect(publishes.count == 1)
                    #expect(publishes.first?["detail"]?["scheduled"] == "true")
                    #expect(publishes.first?["actorKey"]?.stringValue?.hasPrefix("apiKeys/") == true)
                    // Both servers' fetch caches serve it.
                    for app in [one, two] {
                        let fetch = try await ClientCalls.fetch(
                            app, key: clients[project], ClientCalls.iosBody("1.0.0"),
                            path: "/v1/projects/\(project)/remoteConfig:fetch")
                        #expect(fetch.value["templateVersion"] == "1")
                    }
                }
            }
        }
    }

    @Test func aServerStartedAfterAMissedTimePublishesAtOnce() async throws {
        let url = try await TestClusterURL.make()
        let author = try await TestApp.run(url: url) { app in
            try await app.createProject("shop-app")
            let author = try await app.createKey(role: "editor", project: "shop-app")
            let id = try await Workflow.propose(app, token: author.secret, publishTime: Self.later(3600))
            #expect(try await Workflow.get(app, id).changeRequest.state == "SCHEDULED", "no approval required")
            return author.id
        }
        // The time passes while no server runs.
        try await Self.execute("UPDATE change_requests SET publish_time = now() - interval '1 minute'", on: url)
        try await withRunningDatabase(url: url) { database in
            let latest = try await TemplateStore(database: database).latest("shop-app")
            #expect(latest == nil, "nothing published it")
        }
        try await TestApp.run(url: url) { app in
            let started = ContinuousClock.now
            #expect(try await Workflow.eventually(.seconds(5)) { try await Workflow.versions(app).count == 1 })
            print("a restarted server published a missed schedule after \(ContinuousClock.now - started)")
            let event = try #require(
                try await Workflow.events(app).first { $0["action"] == "changeRequest.publish" })
            #expect(event["actorKey"] == .string("apiKeys/\(author)"), "the author's schedule")
            let list = try await app.call(.get, Workflow.base + "?state=PUBLISHED")
            #expect(try list.changeRequests.changeRequests.first?.publishedVersionNumber == "1")
        }
    }

    @Test func aScheduledPublishReachesStreamsAndFetches() async throws {
        try await ClientCalls.withShop { app, key in
            let stream = try SSEClient(port: app.port, path: ClientCalls.streamPath, headers: ["X-API-Key": key])
            defer { stream.close() }
            _ = try await stream.head()
            var first = try await stream.next()
            while first?.id == nil, first != nil { first = try await stream.next() }
            #expect(first?.id == "1")
            _ = try await Workflow.propose(app, currentVersion: "5.0.0", publishTime: Self.later(1.5))
            var event = try await stream.next(timeout: .seconds(10))
            while event != nil, event?.id == nil { event = try await stream.next(timeout: .seconds(10)) }
            #expect(event?.id == "2", "the stream announced the scheduled version")
            let fetch = try await ClientCalls.fetch(app, key: key, ClientCalls.iosBody("3.0.0"))
            #expect(fetch.value["templateVersion"] == "2")
            #expect(fetch.value["entries"]?["current_version"] == "5.0.0")
        }
    }

    @Test func aCancelledScheduleIsNeverPublishedAndALateApprovalPublishesAtOnce() async throws {
        let url = try await TestClusterURL.make()
        try await TestApp.run(url: url) { app in
            try await app.createProject("shop-app")
            let cancelled = try await Workflow.propose(app, description: "cancelled", publishTime: Self.later(3600))
            #expect(try await Workflow.act(app, cancelled, "cancel").changeRequest.state == "CANCELLED")
            try await Self.execute("UPDATE change_requests SET publish_time = now() - interval '1 minute'", on: url)
            // A later request that is due: once the scheduler published it, it has passed the cancelled one by.
            _ = try await Workflow.propose(app, description: "due", publishTime: Self.later(-30))
            #expect(try await Workflow.eventually { try await Workflow.versions(app).count == 1 })
            #expect(try await Workflow.versions(app).first?["description"] == "due")
            #expect(try await Workflow.get(app, cancelled).changeRequest.state == "CANCELLED")

            // Approved only after its time: published as soon as it is approved.
            try await Workflow.requireApproval(app, true)
            let author = try await app.createKey(role: "editor", project: "shop-app")
            let id = try await Workflow.propose(app, token: author.secret, publishTime: Self.later(-60))
            #expect(try await Workflow.get(app, id).changeRequest.state == "OPEN", "not approved, not due")
            #expect(try await Workflow.act(app, id, "approve").status == 200)
            #expect(try await Workflow.eventually { try await Workflow.versions(app).count == 2 })
        }
    }
}
