import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import RemoteConfigStore
import ServiceLifecycle

/// `base` with its database pool started before the work that runs before the server starts (the admin
/// bootstrap, loading the published templates and keys), which leases connections: see `PoolStart`.
struct PoolFirstApplication<Base: ApplicationProtocol>: ApplicationProtocol {
    typealias Responder = Base.Responder

    let base: Base
    let database: Database
    let start = PoolStart()

    var responder: Responder { get async throws { try await base.responder } }
    var server: HTTPServerBuilder { base.server }
    var eventLoopGroup: any EventLoopGroup { base.eventLoopGroup }
    var configuration: ApplicationConfiguration { base.configuration }
    var logger: Logger { base.logger }

    func onServerRunning(_ channel: any Channel) async { await base.onServerRunning(channel) }

    var services: [any Service] {
        base.services.map { service in
            (service as? Database) === database ? StartingDatabase(database: database, start: start) : service
        }
    }

    var processesRunBeforeServerStart: [@Sendable () async throws -> Void] {
        let start = self.start
        return [{ await start.wait() }] + base.processesRunBeforeServerStart
    }
}
