import Hummingbird

/// Answers each request in a child task, so the async frames of routing and middleware are freed with that
/// task instead of staying with the connection's task, which an open stream keeps alive for hours.
struct ChildTaskResponder<Base: HTTPResponder>: HTTPResponder where Base.Context: Sendable {
    let base: Base

    func respond(to request: Request, context: Base.Context) async throws -> Response {
        async let response = base.respond(to: request, context: context)
        return try await response
    }
}
