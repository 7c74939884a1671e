import HTTPTypes
import Hummingbird

/// CORS for the client routes the router serves (a connection's fronts answer the same way, see
/// `CORSPolicy`): a preflight `OPTIONS` from an allowed origin is 204 with what the browser asked about, and
/// every answer to that origin, errors included, carries `Access-Control-Allow-Origin`. It wraps the error
/// mapping so that a 401 or 503 reaches the page's script rather than a bare network error.
struct CORSMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext
    let policy: CORSPolicy

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard policy.isEnabled, let origin = request.headers[.origin], policy.allows(origin),
            CORSPolicy.isClientPath(request.uri.path)
        else { return try await next(request, context) }
        if request.method == .options {
            return Response(status: .noContent, headers: CORSPolicy.preflightFields(origin: origin))
        }
        var response = try await next(request, context)
        // Appended: an answer's own `Vary: Accept-Encoding` stays.
        response.headers.append(contentsOf: CORSPolicy.answerFields(origin: origin))
        return response
    }
}
