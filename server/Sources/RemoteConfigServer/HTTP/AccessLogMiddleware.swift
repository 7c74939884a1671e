import Hummingbird

/// Records the access-log line of every request the router answers, in the `AccessLog` the fronts use:
/// the path without its query, so a `?key=` never reaches the log.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let accessLog: AccessLog

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard accessLog.enabled else { return try await next(request, context) }
        let start = ContinuousClock.now
        let response = try await next(request, context)
        accessLog.record(
            method: request.method.rawValue, path: request.uri.path, status: Int(response.status.code),
            duration: ContinuousClock.now - start, requestID: context.requestID)
        return response
    }
}
