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

    /// Webhooks and their outbox.
    public let webhooks: WebhookStore
    /// How webhooks are delivered.
    public let webhookSettings: WebhookSettings

    /// Fetches per second per client key; nil for no limit.
    public let fetchRateLimit: Double?
    /// The fetch route, shared by the event-loop fast path and the router.
    let fetch: FetchEndpoint

    public init(
        database: Database, logger: Logger, streamKeepAliveInterval: Duration = .seconds(15),
        fetchRateLimit: Double? = nil, maxStreams: Int = .max,
        storeLookupURL: String = "https://itunes.apple.com/lookup", storeLookupTimeout: Duration = .seconds(10),
        webhookSettings: WebhookSettings = WebhookSettings()
    ) {
        self.fetchRateLimit = fetchRateLimit
        self.webhooks = WebhookStore(database: database)
        self.webhookSettings = webhookSettings
        self.database = database
        self.projects = ProjectStore(database: database)
        self.keys = KeyStore(database: database)
        self.templates = TemplateStore(database: database)
        self.drafts = DraftStore(database: database)
        self.changeRequests = ChangeRequestStore(database: database)
        self.published = PublishedTemplates(templates: templates, logger: logger)
        self.clientKeys = ClientKeys(keys: keys)
        let streams = StreamHub(keepAliveInterval: streamKeepAliveInterval, maxStreams: maxStreams)
        self.streams = streams
        let metrics = ServerMetrics()
        self.metrics = metrics
        self.fetch = FetchEndpoint(
            published: published, clientKeys: clientKeys, metrics: metrics,
            rateLimiter: fetchRateLimit.map { FetchRateLimiter(rate: $0) })
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
            metrics: metrics, logger: logger, doorbell: ring)
    }

    /// The template routes' controller.
    func templatesController() -> TemplatesController {
        TemplatesController(
            templates: templates, drafts: drafts, projects: projects, published: published, metrics: metrics,
            auth: Authenticator(keys: keys))
    }
}

/// Builds the router with every route of the API; `routes` records them (405 answers, the OpenAPI test).
public func buildRouter(_ environment: AppEnvironment, routes table: RouteTable = RouteTable()) -> Router<
    AppRequestContext
> {
    let router = Router(context: AppRequestContext.self, options: [.autoGenerateHeadEndpoints])
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
    FetchController(endpoint: environment.fetch).addRoutes(to: clientRoutes)
    OFREPController(endpoint: environment.fetch).addRoutes(to: clientRoutes)
    StreamController(
        published: environment.published, clientKeys: environment.clientKeys, hub: environment.streams,
        metrics: environment.metrics
    )
    .addRoutes(to: clientRoutes)
    let templates = environment.templatesController()
    templates.addRoutes(to: routes)
    DraftsController(drafts: environment.drafts, templates: environment.templates, templatesController: templates)
        .addRoutes(to: routes)
    PreviewController(
        published: environment.published, templates: environment.templates, drafts: environment.drafts,
        templatesController: templates
    ).addRoutes(to: routes)
    ChangeRequestsController(
        changeRequests: environment.changeRequests, templates: environment.templates, drafts: environment.drafts,
        templatesController: templates
    ).addRoutes(to: routes)
    AuditLogController(database: environment.database, auth: auth, templates: templates).addRoutes(to: routes)
    ConsoleController(files: .bundled).addRoutes(to: routes)
    StoreSyncController(
        links: environment.storeLinks, templates: environment.templates, sync: environment.storeSync,
        templatesController: templates
    ).addRoutes(to: routes)
    WebhooksController(
        webhooks: environment.webhooks, templatesController: templates,
        allowPrivate: environment.webhookSettings.allowPrivate
    ).addRoutes(to: routes)
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
        storeLookupURL: configuration.storeLookupURL, storeLookupTimeout: configuration.storeLookupTimeout,
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
                metrics: environment.metrics),
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
    app.addServices(database, StreamHubService(hub: environment.streams))
    let wakeup = ChangeRequestScheduler.Wakeup()
    app.addServices(
        EventListener(
            database: database, published: environment.published, clientKeys: environment.clientKeys, logger: logger,
            interval: configuration.cacheCheckInterval, onScheduled: { wakeup.wake() }))
    app.addServices(
        ChangeRequestScheduler(
            changeRequests: environment.changeRequests, publishing: environment.publishing, logger: logger,
            interval: configuration.schedulePollInterval, wakeup: wakeup))
    app.addServices(
        StoreSyncService(
            sync: environment.storeSync, pollInterval: configuration.storeSyncPollInterval,
            doorbell: environment.storeSyncDoorbell))
    let webhooks = environment.webhookSettings
    app.addServices(
        WebhookDeliverer(
            store: environment.webhooks,
            payload: WebhookPayload(templates: environment.templates, publicURL: webhooks.publicURL),
            client: WebhookHTTPClient(allowPrivate: webhooks.allowPrivate, timeout: webhooks.timeout),
            settings: webhooks, logger: logger))
    app.beforeServerStarts {
        try await AdminBootstrap(keys: environment.keys, configuration: configuration, logger: logger).run()
        try await environment.published.synchronize()
        try await environment.clientKeys.synchronize()
    }
    return app
}

/// Makes sure an admin can get in: the configured token, or on a first start a new one shown once.
struct AdminBootstrap {
    let keys: KeyStore
    let configuration: ServerConfiguration
    let logger: Logger

    func run() async throws {
        if let token = configuration.adminToken, !token.isEmpty {
            try await keys.ensureBootstrapAdmin(token: token)
            logger.info("admin key from RC_ADMIN_TOKEN is active")
            return
        }
        guard try await !keys.hasGlobalAdmin() else { return }
        let token = KeySecret.generate(role: .admin)
        try await keys.ensureBootstrapAdmin(token: token)
        let path = URL(fileURLWithPath: configuration.dataDirectory).appendingPathComponent("admin-token").path
        try? FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
        FileManager.default.createFile(
            atPath: path, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600])
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        // Printed once, on purpose: this is how the first admin learns it. Never logged.
        Console.line("Admin token (shown once, also saved to \(path)): \(token)")
    }
}

/// Lines for the person who started the server, written unbuffered so they appear at once even in a pipe.
public enum Console {
    public static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }
}
