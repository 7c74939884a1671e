import RemoteConfigStore

/// Every store, each built once around the one database pool; the controllers and the background workers take
/// the ones they use from here.
public struct Stores: Sendable {
    public let database: Database
    /// The secrets key's sealer, checked against the database at start (`ServerSecrets.prepare`), and the
    /// impact sample's key.
    public let secrets: ServerSecrets
    public let projects: ProjectStore
    public let keys: KeyStore
    public let templates: TemplateStore
    public let drafts: DraftStore
    public let changeRequests: ChangeRequestStore
    public let rollouts: RolloutStore
    /// People who signed in, their sessions, the role bindings that give them roles, and sign-ins under way.
    public let users: UserStore
    public let sessions: SessionStore
    public let roleBindings: RoleBindingStore
    public let signInStates: SignInStateStore
    /// Store links and their syncs.
    public let storeLinks: StoreLinkStore
    /// Google Play links and their syncs.
    public let googlePlayLinks: GooglePlayLinkStore
    /// The writes of a sync of either kind of link (its publish, the check that it still holds the link).
    public let syncFences: SyncFences
    /// Insights' counts, and the impact sample that collection keeps.
    public let insights: InsightsStore
    public let insightSamples: InsightSampleStore
    /// Webhooks and their outbox.
    public let webhooks: WebhookStore
    /// Minimum-version policies and their checks.
    public let minimumVersionPolicies: MinimumVersionPolicyStore

    /// The stores over `database`, with session lifetimes from `configuration`; new rollouts draw their ids
    /// from `rolloutIDs` (at random; tests give known ones).
    public init(
        database: Database, secrets: ServerSecrets, configuration: ServerConfiguration,
        rolloutIDs: RolloutIDs = .random
    ) {
        self.database = database
        self.secrets = secrets
        projects = ProjectStore(database: database)
        keys = KeyStore(database: database)
        templates = TemplateStore(database: database)
        drafts = DraftStore(database: database)
        changeRequests = ChangeRequestStore(database: database)
        rollouts = RolloutStore(database: database, ids: rolloutIDs)
        users = UserStore(database: database)
        sessions = SessionStore(
            database: database, maxAge: configuration.sessionMaxAge, idleTimeout: configuration.sessionIdleTimeout)
        roleBindings = RoleBindingStore(database: database)
        signInStates = SignInStateStore(database: database)
        storeLinks = StoreLinkStore(database: database)
        googlePlayLinks = GooglePlayLinkStore(database: database, sealer: secrets.sealer)
        syncFences = SyncFences(database: database)
        insights = InsightsStore(database: database)
        insightSamples = InsightSampleStore(database: database)
        webhooks = WebhookStore(database: database, sealer: secrets.sealer)
        minimumVersionPolicies = MinimumVersionPolicyStore(database: database)
    }
}
