import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore

/// A real HTTP endpoint on loopback that webhooks deliver to: it records every request (headers and body)
/// and answers with the statuses it is told, in order, then 204.
public final class WebhookReceiver: Sendable {
    /// One request as the receiver got it.
    public struct Received: Sendable, JSONReply {
        public let path: String
        public let headers: [String: String]
        public let body: Data

    }

    private struct State {
        var statuses: [Int] = []
        var received: [Received] = []
        /// How many of the next requests get no answer at all (a receiver that hangs).
        var hangs = 0
        /// Whether 200 answers come with a body that never ends.
        var endless = false
    }

    private let state = NIOLockedValueBox(State())
    /// The URL to register (`http://127.0.0.1:<port>/hook`).
    public let url: String
    private let task: Task<Void, any Error>

    private init(url: String, task: Task<Void, any Error>) {
        self.url = url
        self.task = task
    }

    /// Runs `body` with a receiver listening on loopback, and stops it afterwards.
    public static func run<T: Sendable>(_ body: (WebhookReceiver) async throws -> T) async throws -> T {
        let box = NIOLockedValueBox<WebhookReceiver?>(nil)
        let router = Router()
        router.post("/hook") { request, context -> Response in
            guard let receiver = box.withLockedValue({ $0 }) else { return Response(status: .serviceUnavailable) }
            let buffer = try await request.body.collect(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.rawName] = field.value }
            return try await receiver.respond(
                Received(path: request.uri.path, headers: headers, body: Data(buffer: buffer)))
        }
        let (port, task) = try await startLoopbackRouter(router, label: "webhook-receiver")
        let receiver = WebhookReceiver(url: "http://127.0.0.1:\(port)/hook", task: task)
        box.withLockedValue { $0 = receiver }
        defer { task.cancel() }
        return try await body(receiver)
    }

    /// Answers the next requests with these statuses, in order (then 204 again).
    public func answer(_ statuses: [Int]) {
        state.withLockedValue { $0.statuses = statuses }
    }

    /// Leaves the next `count` requests unanswered (until the sender gives up or the receiver stops).
    public func hang(_ count: Int) {
        state.withLockedValue { $0.hangs = count }
    }

    /// Answers 200 with a body that never ends: a sender must stop reading on its own.
    public func answerEndlessly() {
        state.withLockedValue { $0.endless = true }
    }

    /// Every request so far, in the order it arrived.
    public var received: [Received] { state.withLockedValue { $0.received } }

    /// Waits until at least `count` requests arrived (or `limit` passed) and returns them.
    @discardableResult
    public func waitFor(_ count: Int, within limit: Duration = .seconds(20)) async throws -> [Received] {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            let received = self.received
            if received.count >= count { return received }
            try await Task.sleep(for: .milliseconds(20))
        }
        return received
    }

    private func respond(_ request: Received) async throws -> Response {
        let (status, hang, endless) = state.withLockedValue { state -> (Int, Bool, Bool) in
            state.received.append(request)
            if state.endless { return (200, false, true) }
            if state.hangs > 0 {
                state.hangs -= 1
                return (0, true, false)
            }
            return (state.statuses.isEmpty ? 204 : state.statuses.removeFirst(), false, false)
        }
        if hang { try await Task.sleep(for: .seconds(300)) }
        if endless {
            return Response(
                status: .ok,
                body: ResponseBody { writer in
                    let chunk = ByteBuffer(repeating: UInt8(ascii: "x"), count: 16 * 1024)
                    // Until the sender hangs up (the write then fails) or the receiver stops.
                    while !Task.isCancelled { try await writer.write(chunk) }
                })
        }
        return Response(status: .init(code: status))
    }
}
