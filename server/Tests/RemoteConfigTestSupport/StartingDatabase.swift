import RemoteConfigStore
import ServiceLifecycle

/// The database as a service that opens `start` as it runs.
struct StartingDatabase: Service {
    let database: Database
    let start: PoolStart

    func run() async throws { try await start.run(database) }
}
