import Foundation
import Hummingbird
import Logging
import NIOCore
import RemoteConfigCore
import RemoteConfigStore

/// The stores and helpers the controllers share, built around one database pool.
public struct AppEnvironment: Sendable {
    public let database: Database
    /// The secrets key's sealer, checked against the database at start (`ServerSecrets.prepare`), and the
    /// impact sample's key.
    public let secrets: ServerSecrets
    public let projects: ProjectStore
    public let keys: KeyStore
    public let templates: TemplateStore
    public let drafts: DraftStore
    public let changeRequests: ChangeRequestStore
    /// People who signed in, their sessions, and the role bindings that give them roles.
    public let users: UserStore
    public let sessions: SessionStore
    public let roleBindings: RoleBindingStore
    /// Single sign-on with the team's provider; nil when it is not set up.
    let signIn: SignIn?
    /// Who calls an admin route, and what they may do.
    let auth: Authenticator
    /// Whether the console offers signing in with a pasted key.
    public var consoleTokenSignIn = true
    /// Where new rollouts' ids come from: at random (tests give known ones).
    public var rolloutIDs = RolloutIDs.random
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
    /// The stream route, shared by the event-loop fast path and the router.
    let stream: StreamEndpoint
    /// Threads for CPU-heavy work; a service of the application built around this environment.
    let heavyWork: HeavyWork
    /// Where impact estimates run, apart from `heavyWork`; a service of the application too.
    let impactWork = ImpactWork()
    /// What client answers this server counted and has not written yet.
    let insightsRecorder: InsightsRecorder
    /// Insights in the database.
    public let insights: InsightsStore
    /// One line per answered request, whichever way it came in; a service of the application.
    public let accessLog: AccessLog

    /// `accessLog` replaces the one made from `logger` (a test reads the lines it writes).
    public init(
        database: Database, secrets: ServerSecrets, logger: Logger, streamKeepAliveInterval: Duration = .seconds(15),
        fetchRateLimit: Double? = nil, maxStreams: Int = .max, maxStreamsPerKey: Int? = nil,
        cors: CORSPolicy = .none,
        storeLookupURL: String = ServerConfiguration.appleLookupURL, storeLookupTimeout: Duration = .seconds(10),
        insightsEnabled: Bool = true, insightsSampleSize: Int = 10_000,
        webhookSettings: WebhookSettings = WebhookSettings(), accessLog: AccessLog? = nil,
        provider: OIDCProvider? = nil, sessionMaxAge: Duration = .seconds(43_200),
        sessionIdleTimeout: Duration = .seconds(7_200)
    ) {
        self.fetchRateLimit = fetchRateLimit
        self.cors = cors
        self.webhooks = WebhookStore(database: database, sealer: secrets.sealer)
        self.webhookSettings = webhookSettings
        self.database = database
        self.secrets = secrets
        self.projects = ProjectStore(database: database)
        self.keys = KeyStore(database: database)
        self.templates = TemplateStore(database: database)
        self.drafts = DraftStore(database: database)
        self.changeRequests = ChangeRequestStore(database: database)
        let users = UserStore(database: database)
        self.users = users
        let sessions = SessionStore(database: database, maxAge: sessionMaxAge, idleTimeout: sessionIdleTimeout)
        self.sessions = sessions
        let roleBindings = RoleBindingStore(database: database)
        self.roleBindings = roleBindings
        self.signIn = provider.map { provider in
            SignIn(
                provider: provider, states: SignInStateStore(database: database), users: users, sessions: sessions,
                logger: logger)
        }
        self.auth = Authenticator(
            keys: keys, sessions: sessions, users: users, bindings: roleBindings,
            publicOrigin: (provider?.settings.publicURL ?? webhookSettings.publicURL).flatMap(origin(of:)))
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
        let accessLog = accessLog ?? AccessLog(logger: logger, metrics: metrics)
        self.accessLog = accessLog
        let insightsRecorder = InsightsRecorder(
            enabled: insightsEnabled, sampleSize: insightsSampleSize, sampleKey: secrets.sampleKey,
            metrics: metrics)
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
        self.stream = StreamEndpoint(
            hub: streams, published: published, clientKeys: clientKeys, metrics: metrics, cors: cors,
            accessLog: accessLog)
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
        let lookupURL = URL(string: storeLookupURL) ?? URL(string: ServerConfiguration.appleLookupURL)!
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
        insightsRecorder.adopt(
            try await insights.add(insightsRecorder.drain(), sampleSize: insightsRecorder.sampleSize))
    }
}
