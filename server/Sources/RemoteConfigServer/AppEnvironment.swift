import Foundation
import Hummingbird
import Logging
import NIOCore
import RemoteConfigCore
import RemoteConfigStore

/// What serves requests, built from the configuration around the stores: the caches the fetch path reads, the
/// stream hub, the client-call endpoints, sign-in, and the parts the background workers share with the routes.
/// `buildApplication` turns it into routes and services.
public struct AppEnvironment: Sendable {
    /// What it was built from.
    public let configuration: ServerConfiguration
    /// Every store, built once.
    public let stores: Stores
    /// Single sign-on with the team's provider; nil when it is not set up.
    let signIn: SignIn?
    /// Who calls an admin route, and what they may do.
    let auth: Authenticator
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
    /// Syncs store links (its background worker and `:run`).
    let storeSync: StoreSync
    /// Syncs Google Play links (its background worker and `:run`).
    let googlePlaySync: GooglePlaySync
    /// The active-instance estimate impact is scaled to; nil scales to the sampled instances.
    public var activeInstances: ActiveInstanceCount?
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
    /// Writes those counts: the background worker's flush, and `flushInsights`.
    let insightsFlush: InsightsFlush
    /// One line per answered request, whichever way it came in; a service of the application.
    public let accessLog: AccessLog
    /// What wakes each background worker.
    let wakeups = Wakeups()

    /// The environment `configuration` describes, around `stores`; `provider` is the discovered sign-in
    /// provider when single sign-on is set up. `accessLog` replaces the one made from `logger` (a test reads
    /// the lines it writes).
    public init(
        configuration: ServerConfiguration, stores: Stores, logger: Logger, provider: OIDCProvider? = nil,
        accessLog: AccessLog? = nil
    ) {
        self.configuration = configuration
        self.stores = stores
        let heavyWork = HeavyWork()
        self.heavyWork = heavyWork
        let metrics = ServerMetrics()
        self.metrics = metrics
        self.accessLog = accessLog ?? AccessLog(logger: logger, metrics: metrics)
        signIn = provider.map { provider in
            SignIn(
                provider: provider, states: stores.signInStates, users: stores.users, sessions: stores.sessions,
                logger: logger)
        }
        auth = Authenticator(
            keys: stores.keys, sessions: stores.sessions, users: stores.users, bindings: stores.roleBindings,
            publicOrigin: (provider?.settings.publicURL ?? configuration.webhooks.publicURL).flatMap(origin(of:)))
        published = PublishedTemplates(templates: stores.templates, heavyWork: heavyWork, logger: logger)
        clientKeys = ClientKeys(keys: stores.keys)
        streams = StreamHub(
            keepAliveInterval: configuration.streamKeepAliveInterval,
            maxStreams: configuration.maxStreams
                ?? ConnectionCapacity.defaultMaxStreams(openFiles: ConnectionCapacity.openFilesLimit),
            maxStreamsPerKey: configuration.maxStreamsPerKey)
        insightsRecorder = InsightsRecorder(
            enabled: configuration.insightsEnabled, sampleSize: configuration.insightsSampleSize,
            sampleKey: stores.secrets.sampleKey, metrics: metrics)
        insightsFlush = InsightsFlush(
            recorder: insightsRecorder, store: stores.insights, retentionDays: configuration.insightsRetentionDays,
            logger: logger)
        // Impact scales its sample to the distinct instances the counts saw in the same window.
        let insights = stores.insights
        activeInstances = { project, since, until, platform in
            try await insights.activeInstances(project: project, since: since, until: until, platform: platform)
        }
        fetch = FetchEndpoint(
            published: published, clientKeys: clientKeys, metrics: metrics,
            rateLimiter: configuration.fetchRateLimit.map { FetchRateLimiter(rate: $0) }, heavyWork: heavyWork,
            cors: configuration.corsOrigins, insights: insightsRecorder, logger: logger)
        stream = StreamEndpoint(
            hub: streams, published: published, clientKeys: clientKeys, metrics: metrics,
            cors: configuration.corsOrigins, accessLog: self.accessLog)
        publishing = Publishing(published: published, metrics: metrics)
        // The configuration was validated; the fallback only keeps a bad URL from crashing a test.
        let lookupURL =
            URL(string: configuration.storeLookupURL) ?? URL(string: ServerConfiguration.appleLookupURL)!
        // One delivery for both stores: publish, or a change request under approvals.
        let delivery = ChangeRequestDelivery(
            projects: stores.projects, changeRequests: stores.changeRequests, fences: stores.syncFences,
            publish: PublishDelivery(fences: stores.syncFences, publishing: publishing))
        storeSync = StoreSync(
            links: stores.storeLinks, templates: stores.templates,
            lookup: AppStoreLookup(baseURL: lookupURL, timeout: configuration.storeLookupTimeout),
            delivery: delivery, metrics: metrics, heavyWork: heavyWork, logger: logger, wakeup: wakeups.storeSync)
        googlePlaySync = GooglePlaySync(
            links: stores.googlePlayLinks, templates: stores.templates,
            client: GooglePlayClient(
                tokenURL: configuration.playTokenURL, apiURL: configuration.playAPIURL,
                timeout: configuration.storeLookupTimeout),
            delivery: delivery, metrics: metrics, heavyWork: heavyWork, logger: logger, wakeup: wakeups.googlePlay)
        observe()
    }

    /// Who hears of what inside this server, in one place. (Between servers, the event listener carries the
    /// database's NOTIFY to the caches and the workers' wake-ups: `buildApplication`.)
    private func observe() {
        let (metrics, streams) = (self.metrics, self.streams)
        published.observe { project, version in
            metrics.cacheReload()
            // Fanning out to thousands of streams takes a while: not on the publishing request's time.
            Task { streams.publish(project: project, version: version) }
        }
        clientKeys.onRevoke { keyId in streams.closeStreams(ofKey: keyId) }
    }

    /// Whether client answers are counted (`--insights`).
    public var insightsEnabled: Bool { insightsRecorder.enabled }

    /// Runs the insights flush now rather than at its interval: what this server counted so far, and what an
    /// earlier flush could not write (tests, tools). Throws the first write that failed; its counts wait for the
    /// next flush, as they would in the background.
    public func flushInsights() async throws {
        if let failure = await insightsFlush.writer.flush() { throw failure }
    }
}
