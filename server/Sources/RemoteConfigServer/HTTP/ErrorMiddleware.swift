import HTTPTypes
import Hummingbird

/// Turns every error a route throws into the API's error shape, through the one mapping
/// (`APIError(mapping:)`); a path the router knows for other methods is answered 405 with `Allow`.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let routes: RouteTable
    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = routes.methods(matching: request.uri.path)
            let apiError: APIError =
                allowed.isEmpty
                ? .notFound("no route \(request.method) \(request.uri.path)")
                : .methodNotAllowed(request, allowed: allowed)
            return try apiError.response(from: request, context: context)
        } catch {
            return try APIError(mapping: error, logger: context.logger, metrics: metrics)
                .response(from: request, context: context)
        }
    }
}
