import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import RemoteConfigCore

/// A stand-in for Apple's App Store lookup API on a loopback port, answering its real response shape (or
/// failing as a real store can), and recording the requests it gets.
public final class FakeAppStore: Sendable {
    /// What the store answers next.
    public enum Answer: Sendable {
        /// `{"resultCount": 1, "results": [listing]}`, beside the other fields Apple sends.
        case listing(
            version: String, trackViewUrl: String = "https://apps.apple.com/jp/app/shop/id123456789?uo=4",
            minimumOsVersion: String = "15.0", releaseDate: String = "2026-11-20T08:00:00Z")
        /// `{"resultCount": 0, "results": []}`: no such app in that storefront.
        case empty
        /// An HTTP error status with a page of text, as a proxy or an outage gives.
        case status(Int)
        /// A 200 whose body is this text.
        case body(String)
        /// No answer at all until the request is given up (or the store stops).
        case hang
        /// Any status, head and body, bytes as they are (a compressed body with its `Content-Encoding`).
        case raw(status: Int, headers: [String: String], body: [UInt8])
        /// A redirect to `location`.
        case redirect(status: Int, location: String)
    }

    private struct State {
        var answer: Answer = .empty
        /// Answers for one app id (`id=` of the lookup), before `answer`.
        var answers: [String: Answer] = [:]
        /// Each request's path and query, in order.
        var requests: [String] = []
        /// How long each answer waits before it is sent.
        var delay: Duration = .zero
        var inFlight = 0
        var mostInFlight = 0
    }

    private let state = NIOLockedValueBox(State())
    /// The lookup URL of this store (`http://127.0.0.1:<port>/lookup`).
    public let url: String
    private let task: Task<Void, any Error>

    private init(url: String, task: Task<Void, any Error>) {
        self.url = url
        self.task = task
    }

    /// Runs `body` with a store listening on loopback, and stops it afterwards.
    public static func run<T: Sendable>(_ body: (FakeAppStore) async throws -> T) async throws -> T {
        let box = NIOLockedValueBox<FakeAppStore?>(nil)
        let router = Router()
        router.get("/lookup") { request, _ -> Response in
            guard let store = box.withLockedValue({ $0 }) else { return Response(status: .serviceUnavailable) }
            return try await store.respond(request)
        }
        let (port, task) = try await startLoopbackRouter(router, label: "fake-app-store")
        let store = FakeAppStore(url: "http://127.0.0.1:\(port)/lookup", task: task)
        box.withLockedValue { $0 = store }
        do {
            let result = try await body(store)
            await store.stop()
            return result
        } catch {
            await store.stop()
            throw error
        }
    }

    private func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    /// Sets what the store answers from now on, after `delay`.
    public func answer(_ answer: Answer, delay: Duration = .zero) {
        state.withLockedValue {
            $0.answer = answer
            $0.delay = delay
        }
    }

    /// Sets what the store answers for the app `appStoreId` from now on, whatever `answer(_:delay:)` says.
    public func answer(_ answer: Answer, forAppId appStoreId: String) {
        state.withLockedValue { $0.answers[appStoreId] = answer }
    }

    /// The requests so far (path and query).
    public var requests: [String] { state.withLockedValue { $0.requests } }

    /// The most requests that were being answered at the same time.
    public var mostInFlight: Int { state.withLockedValue { $0.mostInFlight } }

    private func respond(_ request: Request) async throws -> Response {
        let (answer, delay) = state.withLockedValue { state in
            state.requests.append(request.uri.description)
            state.inFlight += 1
            state.mostInFlight = max(state.mostInFlight, state.inFlight)
            let id = request.uri.queryParameters.get("id") ?? ""
            return (state.answers[id] ?? state.answer, state.delay)
        }
        defer { state.withLockedValue { $0.inFlight -= 1 } }
        if delay > .zero { try await Task.sleep(for: delay) }
        switch answer {
        case .listing(let version, let trackViewUrl, let minimumOsVersion, let releaseDate):
            return Self.json(
                Self.listing(
                    version: version, trackViewUrl: trackViewUrl, minimumOsVersion: minimumOsVersion,
                    releaseDate: releaseDate))
        case .empty:
            return Self.json(#"{"resultCount":0,"results":[]}"#)
        case .status(let status):
            return Response(
                status: .init(code: status), headers: [.contentType: "text/html"],
                body: .init(byteBuffer: ByteBuffer(string: "<html><body>Service Unavailable</body></html>")))
        case .body(let text):
            return Self.json(text)
        case .hang:
            try await Task.sleep(for: .seconds(120))
            return Response(status: .gatewayTimeout)
        case .raw(let status, let headers, let body):
            var fields = HTTPFields()
            for (name, value) in headers {
                if let field = HTTPField.Name(name) { fields[field] = value }
            }
            return Response(
                status: .init(code: status), headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: body)))
        case .redirect(let status, let location):
            return Response(status: .init(code: status), headers: [.location: location])
        }
    }

    /// Apple's answer for one app, with the fields around the ones that matter (numbers, arrays, booleans).
    static func listing(
        version: String, trackViewUrl: String, minimumOsVersion: String = "15.0",
        releaseDate: String = "2026-11-20T08:00:00Z"
    ) -> String {
        let object: JSONValue = [
            "resultCount": 1,
            "results": [
                [
                    "isGameCenterEnabled": false, "features": ["iosUniversal"], "advisories": [],
                    "supportedDevices": ["iPhone15-iPhone15", "iPadPro11M4-iPadPro11M4"], "kind": "software",
                    "artworkUrl512": "https://is1-ssl.mzstatic.com/image/thumb/512x512bb.jpg",
                    "trackViewUrl": .string(trackViewUrl), "trackId": 123_456_789, "trackName": "Shop",
                    "bundleId": "com.example.shop", "version": .string(version),
                    "minimumOsVersion": .string(minimumOsVersion),
                    "releaseNotes": "Bug fixes and performance improvements.\nNew: wish lists.",
                    "currentVersionReleaseDate": .string(releaseDate), "releaseDate": "2021-04-01T07:00:00Z",
                    "price": 0.00, "currency": "JPY", "averageUserRating": 4.61, "userRatingCount": 1234,
                    "genres": ["Shopping", "Lifestyle"], "fileSizeBytes": "123456789", "sellerName": "Example K.K.",
                ]
            ],
        ]
        return object.jsonString
    }

    private static func json(_ text: String) -> Response {
        // Apple answers with this content type, not application/json.
        Response(
            status: .ok, headers: [.contentType: "text/javascript; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
