import Foundation
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigStore

/// The impact sample as estimates read it: a project's instances seen in the window, smallest hashes first,
/// at most the sample size.
@Suite struct InsightSampleStoreTests {
    @Test func readsTheSmallestHashesSeenInTheWindow() async throws {
        try await withRunningDatabase { database in
            let projects = ProjectStore(database: database)
            _ = try await projects.create(projectId: "shop-app", displayName: "Shop", actor: StoreTests.actor)
            _ = try await projects.create(projectId: "other-app", displayName: "Other", actor: StoreTests.actor)
            let recent = InsightSampleRows.fleet("new", 30, platform: "IOS", version: "2.3.0")
            try await InsightSampleRows.insert(database, project: "shop-app", contexts: recent)
            try await InsightSampleRows.insert(
                database, project: "shop-app",
                contexts: InsightSampleRows.fleet("old", 20, platform: "IOS", version: "1.0"),
                lastSeen: Date().addingTimeInterval(-8 * 24 * 3600))
            try await InsightSampleRows.insert(
                database, project: "other-app",
                contexts: InsightSampleRows.fleet("x", 10, platform: "WEB", version: "1"))

            let samples = InsightSampleStore(database: database)
            let week = try await samples.recent("shop-app", since: Date().addingTimeInterval(-7 * 24 * 3600))
            #expect(week.count == 30)
            #expect(week.map(\.instanceHash) == week.map(\.instanceHash).sorted())
            #expect(week.allSatisfy { $0.contextJSON.contains("2.3.0") })
            let smallest = try await samples.recent(
                "shop-app", since: Date().addingTimeInterval(-7 * 24 * 3600), limit: 10)
            #expect(smallest.map(\.instanceHash) == Array(week.map(\.instanceHash).prefix(10)))
            let month = try await samples.recent("shop-app", since: Date().addingTimeInterval(-30 * 24 * 3600))
            #expect(month.count == 50)
            #expect(try await samples.recent("no-such-app", since: .distantPast).isEmpty)
        }
    }
}
