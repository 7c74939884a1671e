import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a fetch ended, for `fetchAndActivate()` and the realtime listener.
enum FetchOutcome: Sendable, Equatable {
    /// The server answered 200; `changed` tells whether the values differ from the previous fetch.
    case fetched(changed: Bool)
    /// The server answered 304: the values fetched earlier are current.
    case notModified
    /// No request was sent: the last successful fetch is younger than the minimum fetch interval.
    case cached
}

extension RemoteConfig {
    /// Longest wait the SDK accepts from `Retry-After` or its own backoff.
    static let maximumBackoff: TimeInterval = 24 * 60 * 60

    /// Fetches values from the server unless the last fetch is younger than `minimumFetchInterval`.
    ///
    /// Fetched values are not used until `activate()`. Throws `RemoteConfigError` on failure; the active values stay.
    @discardableResult
    public func fetch() async throws -> RemoteConfigFetchStatus {
        _ = try await performFetch(minimumInterval: configSettings.minimumFetchInterval)
        return .success
    }

    /// Fetches unless the last fetch is younger than `expirationDuration` seconds (`0` always asks the server).
    @discardableResult
    public func fetch(withExpirationDuration expirationDuration: TimeInterval) async throws -> RemoteConfigFetchStatus {
        _ = try await performFetch(minimumInterval: expirationDuration)
        return .success
    }

    /// Makes the last fetched values the active ones; `false` when they already were (or nothing was fetched).
    @discardableResult
    public func activate() async throws -> Bool {
        activateFetched()
    }

    /// Fetches, then activates; the status tells whether new values came from the server.
    @discardableResult
    public func fetchAndActivate() async throws -> RemoteConfigFetchAndActivateStatus {
        let outcome = try await performFetch(minimumInterval: configSettings.minimumFetchInterval)
        activateFetched()
        if case .fetched = outcome { return .successFetchedFromRemote }
        return .successUsingPreFetchedData
    }

    // MARK: Internals

    @discardableResult
    func activateFetched() -> Bool {
        state.withLock { state in
            guard let fetched = state.persisted.fetched, !fetched.hasSameValues(as: state.persisted.active) else {
                return false
            }
            state.persisted.active = fetched
            stateFile.save(state.persisted)
            return true
        }
    }

    /// The body sent to the fetch route.
    func makeRequestBody(appInstanceId: String, customSignals: [String: CustomSignalValue]) -> FetchRequestBody {
        FetchRequestBody(
            appInstanceId: appInstanceId,
            appId: app.appId,
            platform: app.platform.rawValue,
            appVersion: app.version,
            appBuild: app.build,
            osVersion: app.osVersion,
            countryCode: device.countryCode,
            languageCode: device.languageCode,
            timeZone: device.timeZone,
            sdkVersion: RemoteConfigClientInfo.sdkVersion,
            customSignals: customSignals
        )
    }

    /// Fetches unless throttled; concurrent calls share one request. `minimumInterval` nil bypasses the throttle
    /// (the realtime listener) but never the server's backoff, and waits for a request already under way to end
    /// before sending its own, so its answer is at least as new as the announcement that triggered it.
    func performFetch(minimumInterval: TimeInterval?) async throws -> FetchOutcome {
        enum Plan {
            case cached
            case backoff(Date)
            case join(Task<FetchOutcome, any Error>)
            case waitThenRetry(Task<FetchOutcome, any Error>)
        }
        while true {
            let start = now()
            let plan: Plan = try state.withLock { state in
                if let until = state.persisted.backoffUntil, until > start {
                    state.persisted.lastFetchStatus = .throttled
                    stateFile.save(state.persisted)
                    return .backoff(until)
                }
                let body = try Wire.encode(
                    makeRequestBody(
                        appInstanceId: state.persisted.appInstanceId, customSignals: state.persisted.customSignals))
                // Values fetched by another app version or build (the app was updated) are refetched at once,
                // whatever the interval: the server's answer may differ for this version.
                if let minimumInterval, let last = state.persisted.lastSuccessfulFetchTime,
                    state.persisted.fetched?.wasFetched(for: app) == true,
                    state.persisted.lastFetchRequestBody == body, start >= last,
                    start.timeIntervalSince(last) < minimumInterval
                {
                    return .cached
                }
                if let running = state.inFlightFetch {
                    return minimumInterval == nil ? .waitThenRetry(running) : .join(running)
                }
                let etag = state.persisted.fetched?.etag
                let timeout = state.settings.fetchTimeout
                let task = Task { try await self.sendFetch(body: body, etag: etag, timeout: timeout) }
                state.inFlightFetch = task
                return .join(task)
            }
            switch plan {
            case .cached: return .cached
            case .backoff(let until): throw RemoteConfigError.throttled(until: until)
            case .join(let task): return try await task.value
            case .waitThenRetry(let task): _ = try? await task.value
            }
        }
    }

    /// Sends one fetch request and records its result.
    private func sendFetch(body: Data, etag: String?, timeout: TimeInterval) async throws -> FetchOutcome {
        defer { state.withLock { $0.inFlightFetch = nil } }
        var request = URLRequest(url: Wire.url(server: serverURL, project: project, verb: "fetch"))
        request.httpMethod = "POST"
        request.timeoutInterval = timeout
        request.httpBody = body
        request.setValue(clientKey, forHTTPHeaderField: "X-API-Key")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let etag { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }

        let data: Data
        let response: HTTPURLResponse
        do {
            // `timeoutInterval` above bounds only the silence between packets; the deadline bounds the whole
            // request, so a server that accepts and never (or barely) answers fails the fetch after `timeout`.
            let (transport, request) = (self.transport, request)
            (data, response) = try await withDeadline(seconds: timeout) { try await transport.send(request) }
        } catch {
            throw recordFailure(.from(transportError: error))
        }
        let finished = now()
        switch response.statusCode {
        case 200:
            guard let decoded = try? JSONDecoder().decode(FetchResponseBody.self, from: data) else {
                throw recordFailure(.invalidResponse("the fetch answer is not the expected JSON"))
            }
            let snapshot = ConfigSnapshot(
                entries: decoded.entries ?? [:],
                state: decoded.state ?? "UPDATE",
                templateVersion: decoded.templateVersion,
                etag: response.value(forHTTPHeaderField: "ETag"),
                fetchTime: finished
            )
            return state.withLock { state in
                let changed = !snapshot.hasSameValues(as: state.persisted.fetched)
                state.persisted.fetched = snapshot
                recordSuccess(&state.persisted, body: body, at: finished)
                return .fetched(changed: changed)
            }
        case 304:
            return try state.withLock { state in
                guard state.persisted.fetched != nil else {
                    throw recordFailure(.invalidResponse("304 without earlier values"), in: &state.persisted)
                }
                state.persisted.fetched?.fetchTime = finished
                if let newTag = response.value(forHTTPHeaderField: "ETag") { state.persisted.fetched?.etag = newTag }
                recordSuccess(&state.persisted, body: body, at: finished)
                return .notModified
            }
        case 429, 503, 504:
            let retryAfter = Wire.retryAfter(response, now: finished)
            let until = state.withLock { state in
                let exponential = 60 * pow(2, Double(min(state.persisted.consecutiveBackoffs, 12)))
                let delay = min(retryAfter ?? exponential, Self.maximumBackoff)
                let until = finished.addingTimeInterval(delay)
                state.persisted.backoffUntil = until
                state.persisted.consecutiveBackoffs += 1
                state.persisted.lastFetchStatus = .throttled
                state.persisted.lastFetchTime = finished
                stateFile.save(state.persisted)
                return until
            }
            throw RemoteConfigError.unavailable(statusCode: response.statusCode, retryAfter: retryAfter, until: until)
        default:
            throw recordFailure(Wire.serverError(statusCode: response.statusCode, body: data))
        }
    }

    private func recordSuccess(_ persisted: inout PersistentState, body: Data, at time: Date) {
        // The server just answered for this app version and build: the fetched values (new, or confirmed by a 304)
        // are its answer for them, and so are active values equal to them.
        persisted.fetched?.appVersion = app.version
        persisted.fetched?.appBuild = app.build
        if let fetched = persisted.fetched, fetched.hasSameValues(as: persisted.active) {
            persisted.active?.appVersion = fetched.appVersion
            persisted.active?.appBuild = fetched.appBuild
        }
        persisted.lastSuccessfulFetchTime = time
        persisted.lastFetchTime = time
        persisted.lastFetchStatus = .success
        persisted.lastFetchRequestBody = body
        persisted.backoffUntil = nil
        persisted.consecutiveBackoffs = 0
        stateFile.save(persisted)
    }

    private func recordFailure(_ error: RemoteConfigError) -> RemoteConfigError {
        state.withLock { recordFailure(error, in: &$0.persisted) }
    }

    private func recordFailure(_ error: RemoteConfigError, in persisted: inout PersistentState) -> RemoteConfigError {
        persisted.lastFetchStatus = .failure
        persisted.lastFetchTime = now()
        stateFile.save(persisted)
        return error
    }
}
