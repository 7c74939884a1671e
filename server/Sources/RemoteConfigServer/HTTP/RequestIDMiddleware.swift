import Hummingbird

/// Gives every request its id (`RequestID`: random, or a proxy's well-formed one, the rule the fronts use
/// too): in the context for the access log, in every log line about the request (`hb.request.id`), and in
/// the answer's `X-Request-Id`.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let requestID = RequestID.make(incoming: request.headers[.requestID])
        context.requestID = requestID
        context.logger[metadataKey: "hb.request.id"] = .string(requestID)
        var response = try await next(request, context)
        response.headers[.requestID] = requestID
        return response
    }
}
