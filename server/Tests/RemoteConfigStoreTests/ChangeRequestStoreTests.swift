import Foundation
import RemoteConfigStore
import RemoteConfigTestSupport
import Testing

/// The scheduler's store side: however many replicas run `publishDue` at once, each due request becomes one
/// version.
@Suite struct ChangeRequestStoreTests {
    @Test func replicasPublishingDueRequestsAtOnceMakeOneVersionEach() async throws {
        let url = try await TestCluster.shared.makeDatabase()
        let projects = (1...6).map { "app-\($0)" }
        try await withRunningDatabase(url: url) { one in
            try await withRunningDatabase(url: url) { two in
                let actor = AuditActor(keyId: nil, displayName: "test")
                for project in projects {
                    _ = try await ProjectStore(database: one).create(projectId: project, displayName: "", actor: actor)
                    let request = try await ChangeRequestStore(database: one).create(
                        project,
                        ChangeRequestProposal(templateJSON: "{}", description: "due", publishTime: Date() - 60),
                        actor: actor)
                    #expect(request.state == .scheduled)
                }
                // Eight schedulers on two pools, all at once, several rounds each.
                let published = try await withThrowingTaskGroup(of: Int.self) { group in
                    for index in 0..<8 {
                        let store = ChangeRequestStore(database: index % 2 == 0 ? one : two)
                        group.addTask {
                            var count = 0
                            for _ in 0..<3 { count += try await store.publishDue().count }
                            return count
                        }
                    }
                    return try await group.reduce(0, +)
                }
                #expect(published == projects.count)
                let templates = TemplateStore(database: two)
                for project in projects {
                    #expect(try await templates.latest(project)?.versionNumber == 1, "\(project)")
                }
                #expect(try await ChangeRequestStore(database: two).nextDue() == nil, "nothing waits any more")
            }
        }
    }
}
