import Hummingbird

/// Counts and times every request the router answers, by route pattern, method and status
/// (`rc_http_requests_total`, `rc_http_request_duration_seconds`).
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        metrics.request(
            route: context.endpointPath ?? "unmatched", method: request.method.rawValue,
            status: Int(response.status.code), duration: ContinuousClock.now - start)
        return response
    }
}
