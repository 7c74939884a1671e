import Foundation
import NIOConcurrencyHelpers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session delegate of the store lookup: it receives each answer as it arrives, so that the lookup's
/// limits hold on the bytes a hostile store sends rather than on what is left once they are all in memory.
///
/// - A redirect is not followed: the 3xx itself is the answer (and a failed sync). A lookup URL is configured
///   by the operator; a store answer has no business sending the server to another host or scheme.
/// - The request asks for `Accept-Encoding: identity`, and an answer that is compressed anyway is refused as
///   soon as its head arrives; the size cap also counts the bytes as they are delivered (FoundationNetworking
///   unpacks a compressed body on its own), so a small gzip of a huge body is cut off at the cap.
final class StoreLookupTransfer: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every mutable state is in `transfers`, behind its lock; URLSession calls from its own queue.

    /// One request in flight: what has arrived so far, and who waits for the outcome.
    private struct Transfer {
        var continuation: CheckedContinuation<(Data, HTTPURLResponse), any Error>
        var data = Data()
        var response: HTTPURLResponse?
    }

    private let transfers = NIOLockedValueBox<[Int: Transfer]>([:])
    private let maximumBytes: Int

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// Runs `task` to its end: its answer's head and body, or the `StoreLookupError` (or URLError) that ended it.
    func run(_ task: URLSessionDataTask) async throws -> (Data, HTTPURLResponse) {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                transfers.withLockedValue { $0[task.taskIdentifier] = Transfer(continuation: continuation) }
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }

    /// Ends a transfer once: the first outcome wins, later callbacks of the same task find nothing.
    private func finish(_ task: URLSessionTask, _ outcome: Result<(Data, HTTPURLResponse), any Error>) {
        let transfer = transfers.withLockedValue { $0.removeValue(forKey: task.taskIdentifier) }
        guard let transfer else { return }
        transfer.continuation.resume(with: outcome)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        finish(task, .failure(StoreLookupError.redirected(response.statusCode)))
        completionHandler(nil)
        task.cancel()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            finish(dataTask, .failure(StoreLookupError.unreachable("not an HTTP answer")))
            return completionHandler(.cancel)
        }
        let encoding = (http.value(forHTTPHeaderField: "Content-Encoding") ?? "")
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard encoding.isEmpty || encoding == "identity" else {
            finish(dataTask, .failure(StoreLookupError.compressed))
            completionHandler(.cancel)
            // At once: the session would otherwise go on unpacking what is already on its way.
            return dataTask.cancel()
        }
        if (300..<400).contains(http.statusCode) {
            // A redirect the session would not follow (no Location, or a scheme it cannot follow).
            finish(dataTask, .failure(StoreLookupError.redirected(http.statusCode)))
            return completionHandler(.cancel)
        }
        transfers.withLockedValue { $0[dataTask.taskIdentifier]?.response = http }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = transfers.withLockedValue { transfers -> Bool in
            // A transfer already ended (refused, timed out) gets no more work: stop what still arrives.
            guard var transfer = transfers[dataTask.taskIdentifier] else { return true }
            guard transfer.data.count + data.count <= maximumBytes else { return true }
            transfer.data.append(data)
            transfers[dataTask.taskIdentifier] = transfer
            return false
        }
        if tooLarge {
            finish(dataTask, .failure(StoreLookupError.tooLarge(maximumBytes)))  // no-op once ended
            dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            return finish(task, .failure(error))
        }
        let transfer = transfers.withLockedValue { $0[task.taskIdentifier] }
        guard let response = transfer?.response ?? task.response as? HTTPURLResponse else {
            return finish(task, .failure(StoreLookupError.unreachable("not an HTTP answer")))
        }
        finish(task, .success((transfer?.data ?? Data(), response)))
    }
}
