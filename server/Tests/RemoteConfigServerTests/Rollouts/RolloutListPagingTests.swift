import Foundation
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// `GET …/rollouts` pages as the other lists do (`pageSize`, `pageToken`, `nextPageToken`, newest first), so a
/// project with more than a page of rollouts shows every one of them.
@Suite struct RolloutListPagingTests {
    /// Stores `count` halted rollouts of `banner` straight in the database (one per id, as years of rollouts
    /// leave them), after the rollouts the API made.
    static func storeHalted(_ app: TestApp.Session, count: Int) async throws {
        try await RolloutFixture.execute(
            app,
            """
            INSERT INTO rollouts (project_id, parameter, value, steps, state, halt_token_hash, author_name, ended_at)
            SELECT 'shop-app', 'banner', 'old ' || n, '[{"percent": 10}]', 'HALTED',
                sha256(convert_to('token ' || n, 'UTF8')), 'release bot', now()
            FROM generate_series(1, \(count)) AS n
            """)
    }

    @Test func everyRolloutIsListedPageByPageNewestFirst() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            try await Self.storeHalted(app, count: 1_004)
            let newest = try await RolloutFixture.start(app, steps: RolloutFixture.heldSteps)
            var names: [String] = []
            var token: String?
            var pages = 0
            repeat {
                let query = "?pageSize=300" + (token.map { "&pageToken=\($0)" } ?? "")
                let reply = try await app.call(.get, RolloutFixture.base + query)
                #expect(reply.status == 200, "\(reply.text)")
                let page = try reply.decode(RolloutList.self)
                #expect(page.rollouts.count <= 300)
                names += page.rollouts.map(\.name)
                token = page.nextPageToken
                pages += 1
            } while token != nil && pages < 10
            #expect(pages == 4)
            #expect(names.count == 1_005)
            #expect(Set(names).count == 1_005, "no rollout twice")
            #expect(names.first == newest.name)
            let ids = names.compactMap { Int64($0.dropFirst("rollouts/".count)) }
            #expect(ids == ids.sorted(by: >), "newest first")

            // The default page, a state filter across pages, and bad paging parameters.
            let first = try await app.call(.get, RolloutFixture.base).decode(RolloutList.self)
            #expect(first.rollouts.count == 50)
            #expect(first.nextPageToken != nil)
            let running = try await app.call(.get, RolloutFixture.base + "?state=RUNNING&pageSize=1")
            #expect(try running.decode(RolloutList.self) == RolloutList(rollouts: [newest].map(Self.listed)))
            for query in ["pageSize=0", "pageSize=301", "pageSize=ten", "pageToken=abc"] {
                let bad = try await app.call(.get, RolloutFixture.base + "?" + query)
                #expect(bad.status == 400, "\(query): \(bad.text)")
                #expect(bad.errorFields == [String(query.prefix { $0 != "=" })], "\(query): \(bad.text)")
            }
        }
    }

    /// `rollout` as a list shows it: without the halt token.
    static func listed(_ rollout: Rollout) -> Rollout {
        var copy = rollout
        copy.haltToken = nil
        return copy
    }
}
