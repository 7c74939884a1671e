import NIOConcurrencyHelpers
import Prometheus

/// What `/metrics` reports, in one Prometheus registry per application (so tests stay independent).
public final class ServerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    private let latencyBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
    ]
    private let openStreams: Gauge
    private let notModified: Counter
    private let cacheReloads: Counter
    private let databaseErrors: Counter
    private let refusedStreams: Counter
    private let refusedConnections: Counter
    private let acceptErrors: Counter
    private let accessLogDrops: Counter
    private let samplesDropped: Counter

    static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "rc", metricName: metric, unitName: unit, helpText: help)
    }

    static var requests: MetricNameDescriptor {
        name("http_requests", "total", "HTTP requests by route, method and status")
    }
    static var latency: MetricNameDescriptor {
        name("http_request_duration", "seconds", "HTTP request latency by route")
    }
    static var fetches: MetricNameDescriptor { name("fetches", "total", "Fetch answers by state (304s included)") }
    static var storeSyncFailures: MetricNameDescriptor {
        name(
            "store_sync_failures", "total",
            "Store version syncs that failed (store unreachable, slow, or answering garbage), by store: nothing changed"
        )
    }

    static var storeSyncs: MetricNameDescriptor {
        name("store_syncs", "total", "Store version syncs run by this server, by result")
    }
    static var memoryHeld: MetricNameDescriptor {
        name("memory_held", "bytes", "Bytes held within each of the server's memory budgets, by kind")
    }
    static var publishes: MetricNameDescriptor {
        name("publishes", "total", "Versions published through this server, by update type")
    }

    public init() {
        openStreams = registry.makeGauge(descriptor: Self.name("stream", "connections", "Open realtime streams"))
        notModified = registry.makeCounter(
            descriptor: Self.name("fetch_not_modified", "total", "Fetches answered 304 Not Modified"))
        cacheReloads = registry.makeCounter(
            descriptor: Self.name("cache_reloads", "total", "Published templates compiled into the fetch cache"))
        databaseErrors = registry.makeCounter(
            descriptor: Self.name("database_errors", "total", "Requests that failed because the database was down"))
        refusedStreams = registry.makeCounter(
            descriptor: Self.name(
                "streams_refused", "total", "Stream requests refused because the server held its maximum"))
        refusedConnections = registry.makeCounter(
            descriptor: Self.name(
                "connections_refused", "total",
                "Connections closed unserved because the server held as many as its open-files limit allows"))
        acceptErrors = registry.makeCounter(
            descriptor: Self.name(
                "accept_errors", "total", "Accepts that failed because the process or system ran out of descriptors"
            ))
        // Shown at 0 from the start, so an alert on them has a series before the first failure.
        for store in ["app_store", "google_play"] {
            _ = registry.makeCounter(descriptor: Self.storeSyncFailures, labels: [("store", store)])
        }
        accessLogDrops = registry.makeCounter(
            descriptor: Self.name(
                "access_log_dropped_lines", "total",
                "Access-log lines dropped because the log's output was slower than requests arrived"))
        samplesDropped = registry.makeCounter(
            descriptor: Self.name(
                "insights_samples_dropped", "total",
                "Instances not sampled for impact because the samples held between flushes filled their budget"))
    }

    /// The labelled series already made: the registry builds label strings and takes its lock on every
    /// `make…` call, which the fetch path cannot afford per request.
    private struct RequestSeries: Hashable {
        var route: String
        var method: String
        var status: Int
    }
    private let requestCounters = NIOLockedValueBox<[RequestSeries: Counter]>([:])
    private let latencyHistograms = NIOLockedValueBox<[String: DurationHistogram]>([:])
    private let fetchCounters = NIOLockedValueBox<[String: Counter]>([:])

    /// One answered request: counted by route, method and status, timed by route.
    func request(route: String, method: String, status: Int, duration: Duration) {
        if method == "POST", (100..<600).contains(status), let client = ClientRoute.Kind(path: route) {
            clientRequest(client, status: status, duration: duration)
            return
        }
        let series = RequestSeries(route: route, method: method, status: status)
        let counter = requestCounters.withLockedValue { counters in
            if let counter = counters[series] { return counter }
            let counter = registry.makeCounter(
                descriptor: Self.requests, labels: [("route", route), ("method", method), ("status", String(status))])
            counters[series] = counter
            return counter
        }
        counter.increment()
        let histogram = latencyHistograms.withLockedValue { histograms in
            if let histogram = histograms[route] { return histogram }
            let histogram = registry.makeDurationHistogram(
                descriptor: Self.latency, labels: [("route", route)], buckets: latencyBuckets)
            histograms[route] = histogram
            return histogram
        }
        histogram.record(duration)
    }

    /// The client routes' series by status (fetch and OFREP), found by index rather than by hashing three
    /// labels: this runs on every fetch.
    private let clientSeries = NIOLockedValueBox<[(counters: [Counter?], latency: DurationHistogram?)]>(
        Array(repeating: ([Counter?](repeating: nil, count: 600), nil), count: ClientRoute.Kind.allCases.count))

    /// One answered client call (status 100 to 599).
    func clientRequest(_ kind: ClientRoute.Kind, status: Int, duration: Duration) {
        let route = kind.path
        let (counter, histogram) = clientSeries.withLockedValue { all in
            if all[kind.rawValue].counters[status] == nil {
                all[kind.rawValue].counters[status] = registry.makeCounter(
                    descriptor: Self.requests,
                    labels: [("route", route), ("method", "POST"), ("status", String(status))])
            }
            if all[kind.rawValue].latency == nil {
                all[kind.rawValue].latency = registry.makeDurationHistogram(
                    descriptor: Self.latency, labels: [("route", route)], buckets: latencyBuckets)
            }
            return (all[kind.rawValue].counters[status]!, all[kind.rawValue].latency!)
        }
        counter.increment()
        histogram.record(duration)
    }

    /// One fetch answer, by state; `notModified` for a 304.
    func fetch(state: String, notModified isNotModified: Bool) {
        let counter = fetchCounters.withLockedValue { counters in
            if let counter = counters[state] { return counter }
            let counter = registry.makeCounter(descriptor: Self.fetches, labels: [("state", state)])
            counters[state] = counter
            return counter
        }
        counter.increment()
        if isNotModified { notModified.increment() }
    }

    /// A version this server published.
    func publish(updateType: String) {
        registry.makeCounter(descriptor: Self.publishes, labels: [("update_type", updateType)]).increment()
    }

    /// A store sync this server ran: `published`, `unchanged` or `failed` (which also counts as a failure of
    /// `store`, `app_store` or `google_play`).
    func storeSync(result: String, store: String = "app_store") {
        registry.makeCounter(descriptor: Self.storeSyncs, labels: [("result", result)]).increment()
        if result == "failed" {
            registry.makeCounter(descriptor: Self.storeSyncFailures, labels: [("store", store)]).increment()
        }
    }

    func cacheReload() { cacheReloads.increment() }
    func streamRefused() { refusedStreams.increment() }
    func connectionRefused() { refusedConnections.increment() }
    func acceptFailed() { acceptErrors.increment() }
    func databaseError() { databaseErrors.increment() }
    func accessLogDropped(_ lines: Int) { accessLogDrops.increment(by: Int64(lines)) }

    func sampleDropped() { samplesDropped.increment() }

    /// The Prometheus text exposition, with gauges read now: open streams, and the bytes each memory budget
    /// holds (`kind`: `answers`, `insights_sample`).
    func render(streams: Int, memoryHeld: [(kind: String, bytes: Int)] = []) -> [UInt8] {
        openStreams.set(Double(streams))
        for (kind, bytes) in memoryHeld {
            registry.makeGauge(descriptor: Self.memoryHeld, labels: [("kind", kind)]).set(Double(bytes))
        }
        return registry.emitToBuffer()
    }
}
