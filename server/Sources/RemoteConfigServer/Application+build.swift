import Foundation
import Hummingbird
import Logging
import NIOCore
import RemoteConfigCore
import RemoteConfigStore

/// The stores and helpers the controllers share, built around one database pool.
public struct AppEnvironment: Sendable {
    public let database: Database
    public let projects: ProjectStore
    public let keys: KeyStore
    public let templates: TemplateStore
    public let drafts: DraftStore
    public let changeRequests: ChangeRequestStore
    /// What follows every publish on this server (metrics, this server's cache), whoever published.
    let publishing: Publishing
    /// The compiled published templates the fetch path serves.
    public let published: PublishedTemplates
    /// Client keys in memory.
    public let clientKeys: ClientKeys
    /// Realtime subscribers.
    public let streams: StreamHub
    /// What `/metrics` reports.
    public let metrics: ServerMetrics

    /// Store links and their syncs.
    public let storeLinks: StoreLinkStore
    /// Syncs store links (the background loop and `:run`).
    let storeSync: StoreSync
    /// What wakes the background loop of store sync (`StoreSync.wake()` rings it).
    let storeSyncDoorbell: AsyncStream<Void>

    /// Which web origins may call the client routes from a browser.
    public let cors: CORSPolicy
    /// The impact sample that collection keeps.
    public let insightSamples: InsightSampleStore
    /// The active-instance estimate impact is scaled to; nil scales to the sampled instances.
    public var activeInstances: ActiveInstanceCount?
    /// Webhooks and their outbox.
    public let webhooks: WebhookStore
    /// How webhooks are delivered.
    public let webhookSettings: WebhookSettings

    /// Fetches per second per client key; nil for no limit.
    public let fetchRateLimit: Double?
    /// The fetch route, shared by the event-loop fast path and the router.
    let fetch: FetchEndpoint
    /// Threads for CPU-heavy work; a service of the application built around this environment.
    let heavyWork: HeavyWork
    /// What client answers this server counted and has not written yet.
    let insightsRecorder: InsightsRecorder
    /// Insights in the database.
    public let insights: InsightsStore
    /// One line per answered request, whichever way it came in; a service of the application.
    public let accessLog: AccessLog

    public init(
        database: Database, logger: Logger, streamKeepAliveInterval: Duration = .seconds(15),
        fetchRateLimit: Double? = nil, maxStreams: Int = .max, maxStreamsPerKey: Int? = nil,
        cors: CORSPolicy = .none,
        storeLookupURL: String = "https://itunes.apple.com/lookup", storeLookupTimeout: Duration = .seconds(10),
        insightsEnabled: Bool = true, insightsSampleSize: Int = 10_000,
        webhookSettings: WebhookSettings = WebhookSettings()
    ) {
        self.fetchRateLimit = fetchRateLimit
        self.cors = cors
        self.webhooks = WebhookStore(database: database)
        self.webhookSettings = webhookSettings
        self.database = database
        self.projects = ProjectStore(database: database)
        self.keys = KeyStore(database: database)
        self.templates = TemplateStore(database: database)
        self.drafts = DraftStore(database: database)
        self.changeRequests = ChangeRequestStore(database: database)
        let heavyWork = HeavyWork()
        self.heavyWork = heavyWork
        self.published = PublishedTemplates(templates: templates, heavyWork: heavyWork, logger: logger)
        self.insightSamples = InsightSampleStore(database: database)
        self.clientKeys = ClientKeys(keys: keys)
        let streams = StreamHub(
            keepAliveInterval: streamKeepAliveInterval, maxStreams: maxStreams, maxStreamsPerKey: maxStreamsPerKey)
        self.streams = streams
        let metrics = ServerMetrics()
        self.metrics = metrics
        self.accessLog = AccessLog(logger: logger, metrics: metrics)
        let insightsRecorder = InsightsRecorder(enabled: insightsEnabled, sampleSize: insightsSampleSize)
        self.insightsRecorder = insightsRecorder
        let insights = InsightsStore(database: database)
        self.insights = insights
        // Impact scales its sample to the distinct instances the counts saw in the same window.
        self.activeInstances = { project, since, until, platform in
            try await insights.activeInstances(project: project, since: since, until: until, platform: platform)
        }
        self.fetch = FetchEndpoint(
            published: published, clientKeys: clientKeys, metrics: metrics,
            rateLimiter: fetchRateLimit.map { FetchRateLimiter(rate: $0) }, heavyWork: heavyWork, cors: cors,
            insights: insightsRecorder, logger: logger)
        published.observe { project, version in
            metrics.cacheReload()
            // Fanning out to thousands of streams takes a while: not on the publishing request's time.
            Task { streams.publish(project: project, version: version) }
        }
        clientKeys.onRevoke { keyId in streams.closeStreams(ofKey: keyId) }
        let storeLinks = StoreLinkStore(database: database)
        self.storeLinks = storeLinks
        let publishing = Publishing(published: published, metrics: metrics)
        self.publishing = publishing
        let (doorbell, ring) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.storeSyncDoorbell = doorbell
        // The configuration was validated; the fallback only keeps a bad URL from crashing a test.
        let lookupURL = URL(string: storeLookupURL) ?? URL(string: "https://itunes.apple.com/lookup")!
        self.storeSync = StoreSync(
            links: storeLinks, templates: templates,
            lookup: AppStoreLookup(baseURL: lookupURL, timeout: storeLookupTimeout),
            delivery: ChangeRequestDelivery(
                projects: projects, changeRequests: changeRequests, links: storeLinks,
                publish: PublishDelivery(links: storeLinks, publishing: publishing)),
            metrics: metrics, heavyWork: heavyWork, logger: logger, doorbell: ring)
    }

    /// Whether client answers are counted (`--insights`).
    public var insightsEnabled: Bool { insightsRecorder.enabled }

    /// Writes what this server counted so far at once, rather than at the next flush (tests, tools).
    public func flushInsights() async throws {
        try await insights.add(insightsRecorder.drain(), sampleSize: insightsRecorder.sampleSize)
    }
}

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
    let auth = Authenticator(keys: environment.keys)
    OpsController(
        database: environment.database, published: environment.published, metrics: environment.metrics,
        streams: environment.streams
    ).addRoutes(to: routes)
    ProjectsController(projects: environment.projects, auth: auth).addRoutes(to: routes)
    APIKeysController(keys: environment.keys, clientKeys: environment.clientKeys, auth: auth).addRoutes(to: routes)
    // Client routes take their key as `?key=` too.
    let clientRoutes = routes.accepting(["key"])
    ClientCallController(endpoint: environment.fetch).addRoutes(to: clientRoutes)
    StreamController(
        published: environment.published, clientKeys: environment.clientKeys, hub: environment.streams,
        metrics: environment.metrics
    )
    .addRoutes(to: clientRoutes)
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
        project: { request, context in try await access.project(request, context, .viewer).0 },
        prepare: { try await TemplateHTTP.prepare($0, on: environment.heavyWork) },
        heavyWork: { size, work in try await environment.heavyWork.run(size: size, work) },
        activeInstances: environment.activeInstances, sampleSize: environment.insightsRecorder.sampleSize,
        logger: Logger(label: "remote-config.impact")
    ).addRoutes(to: routes)
    AuditLogController(database: environment.database, auth: auth, access: access).addRoutes(to: routes)
    ConsoleController(files: .bundled).addRoutes(to: routes)
    InsightsController(
        insights: environment.insights, projects: environment.projects, enabled: environment.insightsEnabled,
        auth: auth
    ).addRoutes(to: routes)
    StoreSyncController(
        links: environment.storeLinks, templates: environment.templates, sync: environment.storeSync, access: access
    ).addRoutes(to: routes)
    WebhooksController(
        webhooks: environment.webhooks, access: access,
        allowPrivate: environment.webhookSettings.allowPrivate
    ).addRoutes(to: routes)
    let rollouts = RolloutStore(database: environment.database)
    RolloutsController(rollouts: rollouts, templates: environment.templates, access: access, publishing: publishing)
        .addRoutes(to: routes)
    RolloutHaltHook(rollouts: rollouts, publishing: publishing).addRoutes(to: routes)
    table.serve(from: router)
    return router
}

/// Builds the application: the router, the database pool as a service, and the start-up work
/// (bootstrap admin key) that needs the pool running.
public func buildApplication(
    configuration: ServerConfiguration, database: Database, logger: Logger, routes: RouteTable = RouteTable(),
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let environment = AppEnvironment(
        database: database, logger: logger, streamKeepAliveInterval: configuration.streamKeepAliveInterval,
        fetchRateLimit: configuration.fetchRateLimit,
        maxStreams: configuration.maxStreams
            ?? ConnectionCapacity.defaultMaxStreams(openFiles: ConnectionCapacity.openFilesLimit),
        maxStreamsPerKey: configuration.maxStreamsPerKey, cors: configuration.corsOrigins,
        storeLookupURL: configuration.storeLookupURL, storeLookupTimeout: configuration.storeLookupTimeout,
        insightsEnabled: configuration.insightsEnabled, insightsSampleSize: configuration.insightsSampleSize,
        webhookSettings: configuration.webhooks)
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
            stream: StreamEndpoint(
                hub: environment.streams, published: environment.published, clientKeys: environment.clientKeys,
                metrics: environment.metrics, cors: environment.cors),
            accessLog: environment.accessLog,
            headerTimeout: configuration.headerTimeout, idleTimeout: configuration.idleTimeout
        ),
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "remote-config"),
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
    app.addServices(environment.accessLog, environment.heavyWork, database, StreamHubService(hub: environment.streams))
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
        try await environment.published.synchronize()
        try await environment.clientKeys.synchronize()
    }
    return app
}
