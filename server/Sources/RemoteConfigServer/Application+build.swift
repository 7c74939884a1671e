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
    router.add(middleware: CORSMiddleware(policy: environment.cors))
    // Then, each on its own: the request id, the access-log line and the metrics of the answer the one error
    // mapping (innermost) gives.
    router.add(middleware: RequestIDMiddleware())
    router.add(middleware: AccessLogMiddleware(accessLog: environment.accessLog))
    router.add(middleware: MetricsMiddleware(metrics: environment.metrics))
    router.add(middleware: ErrorMiddleware(routes: table, metrics: environment.metrics))
    let routes = Routes(router: router, table: table)
    let auth = environment.auth
    OpsController(
        database: environment.database, published: environment.published, metrics: environment.metrics,
        streams: environment.streams, insights: environment.insightsRecorder
    ).addRoutes(to: routes)
    ProjectsController(projects: environment.projects, auth: auth).addRoutes(to: routes)
    APIKeysController(keys: environment.keys, clientKeys: environment.clientKeys, auth: auth).addRoutes(to: routes)
    // Client routes take their key as `?key=` too.
    let clientRoutes = routes.accepting(["key"])
    ClientCallController(endpoint: environment.fetch).addRoutes(to: clientRoutes)
    StreamController(endpoint: environment.stream).addRoutes(to: clientRoutes)
    // Project routes share the one access check and the one publish path, injected, as the scheduler gets it.
    let access = ProjectAccess(auth: auth, projects: environment.projects)
    let publishing = environment.publishing
    TemplatesController(
        templates: environment.templates, drafts: environment.drafts, access: access, publishing: publishing,
        heavyWork: environment.heavyWork
    ).addRoutes(to: routes)
    DraftsController(
        drafts: environment.drafts, templates: environment.templates, access: access, publishing: publishing,
        heavyWork: environment.heavyWork
    ).addRoutes(to: routes)
    PreviewController(
        published: environment.published, templates: environment.templates, drafts: environment.drafts,
        access: access
    ).addRoutes(to: routes)
    ChangeRequestsController(
        changeRequests: environment.changeRequests, templates: environment.templates, drafts: environment.drafts,
        access: access, publishing: publishing, heavyWork: environment.heavyWork
    ).addRoutes(to: routes)
    ImpactController(
        samples: environment.insightSamples, published: environment.published, templates: environment.templates,
        drafts: environment.drafts, changeRequests: environment.changeRequests,
        project: { request, context in try await access.project(request, context, .viewer) },
        prepare: { try await TemplateHTTP.prepare($0, on: environment.heavyWork) },
        work: environment.impactWork,
        activeInstances: environment.activeInstances, sampleSize: environment.insightsRecorder.sampleSize,
        logger: Logger(label: "remote-config.impact")
    ).addRoutes(to: routes)
    AuditLogController(database: environment.database, auth: auth, access: access).addRoutes(to: routes)
    ConsoleController(files: .bundled).addRoutes(to: routes)
    SignInController(
        signIn: environment.signIn, sessions: environment.sessions, auth: auth,
        secureCookies: environment.signIn?.provider.settings.secureCookies ?? false,
        tokenSignIn: environment.consoleTokenSignIn,
        logger: Logger(label: "remote-config.sign-in")
    ).addRoutes(to: routes)
    DeviceSignInController(signIn: environment.signIn, sessions: environment.sessions).addRoutes(to: routes)
    LoopbackSignInController(signIn: environment.signIn).addRoutes(to: routes)
    MeController(auth: auth).addRoutes(to: routes)
    RoleBindingsController(bindings: environment.roleBindings, auth: auth).addRoutes(to: routes)
    UsersController(
        users: environment.users, sessions: environment.sessions, bindings: environment.roleBindings, auth: auth
    ).addRoutes(to: routes)
    InsightsController(insights: environment.insights, enabled: environment.insightsEnabled, access: access)
        .addRoutes(to: routes)
    StoreSyncController(
        links: environment.storeLinks, templates: environment.templates, sync: environment.storeSync, access: access
    ).addRoutes(to: routes)
    WebhooksController(
        webhooks: environment.webhooks, access: access,
        allowPrivate: environment.webhookSettings.allowPrivate
    ).addRoutes(to: routes)
    let rollouts = RolloutStore(database: environment.database, ids: environment.rolloutIDs)
    RolloutsController(rollouts: rollouts, templates: environment.templates, access: access, publishing: publishing)
        .addRoutes(to: routes)
    RolloutHaltHook(rollouts: rollouts, publishing: publishing).addRoutes(to: routes)
    table.serve(from: router)
    return router
}

/// Builds the application: the router, the database pool as a service, and the start-up work
/// (bootstrap admin key) that needs the pool running. `secrets` are the database's, prepared before
/// (`ServerSecrets.prepare`), as a wrong key must stop start-up before anything is served.
public func buildApplication(
    configuration: ServerConfiguration, database: Database, secrets: ServerSecrets, logger: Logger,
    routes: RouteTable = RouteTable(), provider: OIDCProvider? = nil,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    var environment = AppEnvironment(
        database: database, secrets: secrets, logger: logger,
        streamKeepAliveInterval: configuration.streamKeepAliveInterval,
        fetchRateLimit: configuration.fetchRateLimit,
        maxStreams: configuration.maxStreams
            ?? ConnectionCapacity.defaultMaxStreams(openFiles: ConnectionCapacity.openFilesLimit),
        maxStreamsPerKey: configuration.maxStreamsPerKey, cors: configuration.corsOrigins,
        storeLookupURL: configuration.storeLookupURL, storeLookupTimeout: configuration.storeLookupTimeout,
        insightsEnabled: configuration.insightsEnabled, insightsSampleSize: configuration.insightsSampleSize,
        webhookSettings: configuration.webhooks, provider: provider, sessionMaxAge: configuration.sessionMaxAge,
        sessionIdleTimeout: configuration.sessionIdleTimeout)
    environment.consoleTokenSignIn = configuration.consoleTokenSignIn
    return buildApplication(
        configuration: configuration, environment: environment, logger: logger, routes: routes,
        onServerRunning: onServerRunning)
}

/// Builds the application around an environment the caller keeps (tests reach its stream hub).
public func buildApplication(
    configuration: ServerConfiguration, environment: AppEnvironment, logger: Logger, routes: RouteTable = RouteTable(),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let database = environment.database
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
    let wakeup = ChangeRequestScheduler.Wakeup()
    app.addServices(
        EventListener(
            database: database, published: environment.published, clientKeys: environment.clientKeys, logger: logger,
            interval: configuration.cacheCheckInterval, onScheduled: { wakeup.wake() }))
    app.addServices(
        ChangeRequestScheduler(
            changeRequests: environment.changeRequests, publishing: environment.publishing, logger: logger,
            interval: configuration.schedulePollInterval, wakeup: wakeup))
    // Steps are due within a second of their time on every replica: the scheduler asks at least that often.
    app.addServices(
        RolloutScheduler(
            rollouts: RolloutStore(database: database), publishing: environment.publishing, logger: logger,
            interval: min(configuration.schedulePollInterval, .seconds(1))))
    app.addServices(
        StoreSyncService(
            sync: environment.storeSync, pollInterval: configuration.storeSyncPollInterval,
            doorbell: environment.storeSyncDoorbell))
    // After the database: at a graceful stop it runs its last flush after the server stopped answering and
    // before the database pool closes (services stop in the reverse order of their adding).
    app.addServices(
        InsightsService(
            recorder: environment.insightsRecorder, store: environment.insights,
            interval: configuration.insightsFlushInterval, retentionDays: configuration.insightsRetentionDays,
            logger: logger))
    let webhooks = environment.webhookSettings
    app.addServices(
        WebhookDeliverer(
            store: environment.webhooks,
            payload: WebhookPayload(templates: environment.templates, publicURL: webhooks.publicURL),
            client: OutboundHTTPClient(
                allowPrivate: webhooks.allowPrivate, timeout: webhooks.timeout, userAgent: "remote-config-webhooks"),
            settings: webhooks, logger: logger))
    app.beforeServerStarts {
        try await AdminBootstrap(keys: environment.keys, configuration: configuration, logger: logger).run()
        for member in configuration.signIn?.admins ?? [] {
            try await environment.roleBindings.bootstrapAdmin(member: member)
        }
        try await environment.published.synchronize()
        try await environment.clientKeys.synchronize()
    }
    return app
}
