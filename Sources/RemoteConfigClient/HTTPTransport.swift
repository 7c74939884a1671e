import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The SDK's only door to the network; swap it for a fake in tests or for your own HTTP stack.
public protocol HTTPTransport: Sendable {
    /// Sends a request and returns the whole body with the response (any status code; only transport failures throw).
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)

    /// Opens a long-lived request (Server-Sent Events) and returns the response head (any status code) and the body's
    /// chunks as they arrive. Cancelling the task that iterates the chunks, or their end, closes the connection.
    func stream(_ request: URLRequest) async throws -> (HTTPURLResponse, AsyncThrowingStream<Data, any Error>)
}

/// An `HTTPTransport` backed by `URLSession`.
public struct URLSessionTransport: HTTPTransport {
    private let configuration: URLSessionConfiguration
    private let session: URLSession

    /// Creates a transport; `configuration` is also used (with long timeouts) for streams.
    public init(configuration: URLSessionConfiguration = .ephemeral) {
        let configuration = configuration.copy() as? URLSessionConfiguration ?? .ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        self.configuration = configuration
        self.session = URLSession(configuration: configuration)
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let task = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let dataTask = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                    } else if let response = response as? HTTPURLResponse {
                        continuation.resume(returning: (data ?? Data(), response))
                    } else {
                        continuation.resume(throwing: URLError(.badServerResponse))
                    }
                }
                task.set(dataTask)
                dataTask.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    public func stream(_ request: URLRequest) async throws -> (HTTPURLResponse, AsyncThrowingStream<Data, any Error>) {
        let streamConfiguration = configuration.copy() as? URLSessionConfiguration ?? .ephemeral
        // The server sends a comment at least every 30 seconds; a silent minute means the connection is dead.
        streamConfiguration.timeoutIntervalForRequest = 90
        streamConfiguration.timeoutIntervalForResource = 24 * 60 * 60
        let delegate = StreamDelegate()
        let session = URLSession(configuration: streamConfiguration, delegate: delegate, delegateQueue: nil)
        let (chunks, chunkContinuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let dataTask = session.dataTask(with: request)
        chunkContinuation.onTermination = { _ in
            dataTask.cancel()
            session.invalidateAndCancel()
        }
        let response = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<HTTPURLResponse, any Error>) in
                delegate.start(response: continuation, chunks: chunkContinuation)
                dataTask.resume()
            }
        } onCancel: {
            dataTask.cancel()
        }
        return (response, chunks)
    }
}

/// Holds a data task so a cancellation handler can reach it.
// @unchecked Sendable is safe: the only stored state is inside a `Locked`.
private final class TaskBox: @unchecked Sendable {
    private let state = Locked<(task: URLSessionTask?, cancelled: Bool)>((nil, false))

    func set(_ task: URLSessionTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}

/// Forwards a streaming data task's response and chunks to continuations.
// @unchecked Sendable is safe: URLSession calls the delegate on its own serial queue, and the mutable state
// (the pending response continuation) lives in a `Locked`; the chunk continuation is itself Sendable.
private final class StreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State: Sendable {
        var response: CheckedContinuation<HTTPURLResponse, any Error>?
        var chunks: AsyncThrowingStream<Data, any Error>.Continuation?
    }

    private let state = Locked(State())

    func start(
        response: CheckedContinuation<HTTPURLResponse, any Error>,
        chunks: AsyncThrowingStream<Data, any Error>.Continuation
    ) {
        state.withLock { state in
            state.response = response
            state.chunks = chunks
        }
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let pending = state.withLock { state in
            defer { state.response = nil }
            return state.response
        }
        if let http = response as? HTTPURLResponse {
            pending?.resume(returning: http)
            completionHandler(.allow)
        } else {
            pending?.resume(throwing: URLError(.badServerResponse))
            completionHandler(.cancel)
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        _ = state.withLock { $0.chunks }?.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (pending, chunks) = state.withLock { state in
            defer {
                state.response = nil
                state.chunks = nil
            }
            return (state.response, state.chunks)
        }
        pending?.resume(throwing: error ?? URLError(.badServerResponse))
        chunks?.finish(throwing: error)
        session.finishTasksAndInvalidate()
    }
}
