import Foundation
import Hummingbird
import Logging
import NIOCore
import RemoteConfigCore
import RemoteConfigStore

/// Builds the router with every route of the API; `routes` records them (405 answers, the OpenAPI test).
public func buildRouter(_ environment: AppEnvironment, routes table: RouteTable = RouteTable()) -> Router<
    AppRequestContext
> {
    let router = Router(context: AppRequestContext.self, options: [.autoGenerateHeadEndpoints])
    // Outermost, so that error answers to an allowed origin carry its CORS headers too.
    router.add(middleware: CORSMiddleware(policy: environment.configuration.corsOrigins))
    // Then, each on its own: the request id, the access-log line and the metrics of the answer the one error
    // mapping (innermost) gives.
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: AccessLogMiddleware(accessLog: environment.accessLog))
    router.add(middleware: MetricsMiddleware(metrics: environment.metrics))
    router.add(middleware: ErrorMiddleware(routes: table, metrics: environment.metrics))
    let routes = Routes(router: router, table: table)
    let auth = environment.auth
    let stores = environment.stores
    OpsController(
        database: stores.database, published: environment.published, metrics: environment.metrics,
        streams: environment.streams, insights: environment.insightsRecorder
    ).addRoutes(to: routes)
    ProjectsController(projects: stores.projects, auth: auth).addRoutes(to: routes)
    APIKeysController(keys: stores.keys, clientKeys: environment.clientKeys, auth: auth).addRoutes(to: routes)
    // Client routes take their key as `?key=` too.
    let clientRoutes = routes.accepting(["key"])
    ClientCallController(endpoint: environment.fetch).addRoutes(to: clientRoutes)
    StreamController(endpoint: environment.stream).addRoutes(to: clientRoutes)
    // Project routes share the one access check and the one publish path, injected, as the scheduler gets it.
    let access = ProjectAccess(auth: auth, projects: stores.projects)
    let publishing = environment.publishing
    TemplatesController(
        templates: stores.templates, drafts: stores.drafts, access: access, publishing: publishing,
        heavyWork: environment.heavyWork
    ).addRoutes(to: routes)
    DraftsController(
        drafts: stores.drafts, templates: stores.templates, access: access, publishing: publishing,
        heavyWork: environment.heavyWork
    ).addRoutes(to: routes)
    PreviewController(
        published: environment.published, templates: stores.templates, drafts: stores.drafts,
        access: access
    ).addRoutes(to: routes)
    ChangeRequestsController(
        changeRequests: stores.changeRequests, templates: stores.templates, drafts: stores.drafts,
        access: access, publishing: publishing, heavyWork: environment.heavyWork
    ).addRoutes(to: routes)
    ImpactController(
        samples: stores.insightSamples, published: environment.published, templates: stores.templates,
        drafts: stores.drafts, changeRequests: stores.changeRequests,
        project: { request, context in try await access.project(request, context, .viewer) },
        prepare: { try await TemplateHTTP.prepare($0, on: environment.heavyWork) },
        work: environment.impactWork,
        activeInstances: environment.activeInstances, sampleSize: environment.insightsRecorder.sampleSize,
        logger: Logger(label: "remote-config.impact")
    ).addRoutes(to: routes)
    AuditLogController(database: stores.database, auth: auth, access: access).addRoutes(to: routes)
    ConsoleController(files: .bundled).addRoutes(to: routes)
    SignInController(
        signIn: environment.signIn, sessions: stores.sessions, auth: auth,
        secureCookies: environment.signIn?.provider.settings.secureCookies ?? false,
        tokenSignIn: environment.configuration.consoleTokenSignIn,
        logger: Logger(label: "remote-config.sign-in")
    ).addRoutes(to: routes)
    DeviceSignInController(signIn: environment.signIn, sessions: stores.sessions).addRoutes(to: routes)
    LoopbackSignInController(signIn: environment.signIn).addRoutes(to: routes)
    MeController(auth: auth).addRoutes(to: routes)
    RoleBindingsController(bindings: stores.roleBindings, auth: auth).addRoutes(to: routes)
    UsersController(
        users: stores.users, sessions: stores.sessions, bindings: stores.roleBindings, auth: auth
    ).addRoutes(to: routes)
    InsightsController(insights: stores.insights, enabled: environment.insightsEnabled, access: access)
        .addRoutes(to: routes)
    MinimumVersionController(
        insights: stores.insights, enabled: environment.insightsEnabled, published: environment.published,
        access: access
    ).addRoutes(to: routes)
    InsightsImportController(
        insights: stores.insights, retentionDays: environment.configuration.insightsRetentionDays, access: access
    ).addRoutes(to: routes)
    StoreSyncController(
        links: stores.storeLinks, templates: stores.templates, sync: environment.storeSync, access: access
    ).addRoutes(to: routes)
    GooglePlayController(
        links: stores.googlePlayLinks, templates: stores.templates, sync: environment.googlePlaySync, access: access
    ).addRoutes(to: routes)
    PromotionController(
        projects: stores.projects, templates: stores.templates, drafts: stores.drafts,
        changeRequests: stores.changeRequests, access: access, publishing: publishing,
        heavyWork: environment.heavyWork
    ).addRoutes(to: routes)
    CompareController(projects: stores.projects, templates: stores.templates, access: access).addRoutes(to: routes)
    MinimumVersionPolicyController(
        policies: stores.minimumVersionPolicies, templates: stores.templates, projects: stores.projects,
        access: access, wakeup: environment.wakeups.versionPolicy
    ).addRoutes(to: routes)
    WebhooksController(
        webhooks: stores.webhooks, access: access, allowPrivate: environment.configuration.webhooks.allowPrivate
    ).addRoutes(to: routes)
    let rollouts = stores.rollouts
    RolloutsController(rollouts: rollouts, templates: stores.templates, access: access, publishing: publishing)
        .addRoutes(to: routes)
    RolloutHaltHook(rollouts: rollouts, publishing: publishing).addRoutes(to: routes)
    // Assistants: each tool is an admin call through this very router, once it is complete.
    let adminResponder = AdminResponder()
    let mcpCalls = MCPInboundCalls()
    MCPController(
        auth: auth,
        sessions: MCPController.sessions(
            responder: adminResponder, inbound: mcpCalls, version: ServerConfiguration.mcpServerVersion),
        inbound: mcpCalls
    ).addRoutes(to: routes)
    table.serve(from: router)
    adminResponder.set(router.buildResponder())
    return router
}

/// Builds the application `configuration` describes on `database`: its stores, its environment, then the
/// router and the services. `secrets` are the database's, prepared before (`ServerSecrets.prepare`), as a wrong
/// key must stop start-up before anything is served; `provider` is the discovered sign-in provider.
public func buildApplication(
    configuration: ServerConfiguration, database: Database, secrets: ServerSecrets, logger: Logger,
    routes: RouteTable = RouteTable(), provider: OIDCProvider? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let stores = Stores(database: database, secrets: secrets, configuration: configuration)
    let environment = AppEnvironment(configuration: configuration, stores: stores, logger: logger, provider: provider)
    return buildApplication(environment, logger: logger, routes: routes, onServerRunning: onServerRunning)
}

/// Builds the application around an environment the caller keeps (tests reach its stream hub): the router, the
/// database pool and the background workers as services, and the start-up work (bootstrap admin key) that
/// needs the pool running.
public func buildApplication(
    _ environment: AppEnvironment, logger: Logger, routes: RouteTable = RouteTable(),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let configuration = environment.configuration
    let stores = environment.stores
    let database = stores.database
    let router = buildRouter(environment, routes: routes)
    var app = Application(
        responder: ChildTaskResponder(base: router.buildResponder()),
        server: .leanHTTP1(
            fetch: environment.fetch,
            stream: environment.stream,
            accessLog: environment.accessLog,
            headerTimeout: configuration.headerTimeout, idleTimeout: configuration.idleTimeout
        ),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: ServerConfiguration.serverName
        ),
        onServerRunning: { channel in
            // Connections beyond what the open-files limit allows are refused at once (see AcceptGuard).
            let capacity = ConnectionCapacity.connections(openFiles: ConnectionCapacity.openFilesLimit)
            do {
                try await AcceptGuard.install(on: channel, capacity: capacity, metrics: environment.metrics)
            } catch {
                logger.warning("could not guard the listening socket's accepts: \(error)")
            }
            await onServerRunning(channel.localAddress?.port ?? configuration.port)
        },
        logger: logger
    )
    // The access log first, so that it stops last and writes the lines of every request answered before the
    // stop; then heavy work: services stop in reverse order, and every later one may still hand it work.
    app.addServices(
        environment.accessLog, environment.heavyWork, environment.impactWork, database,
        StreamHubService(hub: environment.streams), MemoryReturn(logger: logger))
    let wakeups = environment.wakeups
    app.addServices(
        EventListener(
            database: database, published: environment.published, clientKeys: environment.clientKeys, logger: logger,
            interval: configuration.cacheCheckInterval, wakeups: wakeups))
    // The background workers, one shape each (`Worker`): what wakes them is in `Wakeups`.
    app.addServices(
        Worker(
            work: ChangeRequestScheduler(
                changeRequests: stores.changeRequests, publishing: environment.publishing, logger: logger),
            interval: configuration.schedulePollInterval, wakeup: wakeups.changeRequests, logger: logger))
    // Steps are due within a second of their time on every replica even with a NOTIFY lost: the worker looks at
    // least that often.
    app.addServices(
        Worker(
            work: RolloutScheduler(rollouts: stores.rollouts, publishing: environment.publishing, logger: logger),
            interval: min(configuration.schedulePollInterval, .seconds(1)), wakeup: wakeups.rollouts,
            logger: logger))
    app.addServices(
        Worker(
            work: environment.storeSync, interval: configuration.storeSyncPollInterval, wakeup: wakeups.storeSync,
            logger: logger))
    app.addServices(
        Worker(
            work: environment.googlePlaySync, interval: configuration.storeSyncPollInterval,
            wakeup: wakeups.googlePlay, logger: logger))
    app.addServices(
        Worker(
            work: MinimumVersionPolicyCheck(
                policies: stores.minimumVersionPolicies, templates: stores.templates, insights: stores.insights,
                insightsEnabled: environment.insightsEnabled, projects: stores.projects,
                changeRequests: stores.changeRequests, publishing: environment.publishing,
                heavyWork: environment.heavyWork, logger: logger),
            interval: configuration.schedulePollInterval, wakeup: wakeups.versionPolicy, logger: logger))
    // After the database: at a graceful stop it runs its last flush after the server stopped answering and
    // before the database pool closes (services stop in the reverse order of their adding).
    app.addServices(
        Worker(
            work: environment.insightsFlush, interval: configuration.insightsFlushInterval,
            wakeup: wakeups.insights, logger: logger))
    let webhooks = configuration.webhooks
    app.addServices(
        Worker(
            work: WebhookDeliverer(
                store: stores.webhooks,
                payload: WebhookPayload(templates: stores.templates, publicURL: webhooks.publicURL),
                client: OutboundHTTPClient(
                    allowPrivate: webhooks.allowPrivate, timeout: webhooks.timeout,
                    userAgent: "remote-config-webhooks"),
                settings: webhooks, logger: logger, wakeup: wakeups.webhooks),
            interval: webhooks.pollInterval, wakeup: wakeups.webhooks, logger: logger))
    app.beforeServerStarts {
        try await AdminBootstrap(keys: stores.keys, configuration: configuration, logger: logger).run()
        for member in configuration.signIn?.admins ?? [] {
            try await stores.roleBindings.bootstrapAdmin(member: member)
        }
        try await environment.published.synchronize()
        try await environment.clientKeys.synchronize()
    }
    return app
}
