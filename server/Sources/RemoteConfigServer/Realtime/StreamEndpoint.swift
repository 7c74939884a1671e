/// What `StreamFront` serves streams with.
struct StreamEndpoint: Sendable {
    let hub: StreamHub
    let published: PublishedTemplates
    let clientKeys: ClientKeys
    let metrics: ServerMetrics
    let cors: CORSPolicy
}
