import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import RemoteConfigCore

/// A stand-in for Google's token endpoint and the Google Play Developer API's edits and tracks on a loopback
/// port, answering their documented shapes (or failing as Google can), and recording what it is asked. (The
/// end-to-end stand-in in Tests/GooglePlay checks the JWT's signature with Google's own library.)
public final class FakeGooglePlay: Sendable {
    /// Which of the calls an answer is for.
    public enum Call: String, Sendable {
        case token, insertEdit, getTrack, deleteEdit
    }

    /// What a call answers instead of its usual answer.
    public enum Failure: Sendable {
        /// This status, with Google's error shape.
        case status(Int)
        /// A 200 whose body is this text.
        case body(String)
        /// A 200 of more than 2 MiB.
        case oversized
        /// No answer for this long.
        case slow(Duration)
        /// A 302 to `location`.
        case redirect(String)
    }

    private struct State {
        /// The track the API answers (`Track` of androidpublisher v3).
        var track: JSONValue = FakeGooglePlay.track(releases: [])
        var failures: [Call: Failure] = [:]
        var expiresIn = 3599
        /// Every assertion (JWT) the token endpoint got, and the form it came in.
        var assertions: [String] = []
        var grantTypes: [String] = []
        var tokens = 0
        var editsOpened: [String] = []
        var editsDeleted: [String] = []
        var trackReads: [String] = []
        var authorizations: [String] = []
        var nextEdit = 0
        /// How long each track read waits before it answers.
        var trackDelay: Duration = .zero
        var readsInFlight = 0
        var mostReadsInFlight = 0
    }

    private let state = NIOLockedValueBox(State())
    /// `http://127.0.0.1:<port>/token`.
    public let tokenURL: String
    /// `http://127.0.0.1:<port>`.
    public let apiURL: String
    private let task: Task<Void, any Error>

    private init(port: Int, task: Task<Void, any Error>) {
        tokenURL = "http://127.0.0.1:\(port)/token"
        apiURL = "http://127.0.0.1:\(port)"
        self.task = task
    }

    /// Runs `body` with the stand-in listening on loopback, and stops it afterwards.
    public static func run<T: Sendable>(_ body: (FakeGooglePlay) async throws -> T) async throws -> T {
        let box = NIOLockedValueBox<FakeGooglePlay?>(nil)
        let router = Router()
        router.post("/token") { request, _ -> Response in
            guard let fake = box.withLockedValue({ $0 }) else { return Response(status: .serviceUnavailable) }
            let form = String(buffer: try await request.body.collect(upTo: 1 << 20))
            return try await fake.token(form)
        }
        router.post("/androidpublisher/v3/applications/{package}/edits") { request, context -> Response in
            guard let fake = box.withLockedValue({ $0 }) else { return Response(status: .serviceUnavailable) }
            return try await fake.insertEdit(request, package: context.parameters.get("package") ?? "")
        }
        router.get("/androidpublisher/v3/applications/{package}/edits/{edit}/tracks/{track}") {
            request, context -> Response in
            guard let fake = box.withLockedValue({ $0 }) else { return Response(status: .serviceUnavailable) }
            return try await fake.getTrack(request, edit: context.parameters.get("edit") ?? "")
        }
        router.delete("/androidpublisher/v3/applications/{package}/edits/{edit}") { request, context -> Response in
            guard let fake = box.withLockedValue({ $0 }) else { return Response(status: .serviceUnavailable) }
            return try await fake.deleteEdit(request, edit: context.parameters.get("edit") ?? "")
        }
        let (port, task) = try await startLoopbackRouter(router, label: "fake-google-play")
        let fake = FakeGooglePlay(port: port, task: task)
        box.withLockedValue { $0 = fake }
        do {
            let result = try await body(fake)
            await fake.stop()
            return result
        } catch {
            await fake.stop()
            throw error
        }
    }

    private func stop() async {
        task.cancel()
        _ = try? await task.value
    }

    /// A `Track` with these `TrackRelease`s.
    public static func track(_ name: String = "production", releases: [JSONValue]) -> JSONValue {
        ["track": .string(name), "releases": .array(releases)]
    }

    /// A `TrackRelease` as Google writes it: version codes as strings, `userFraction` only while in progress.
    public static func release(
        _ name: String?, codes: [Int], status: String, userFraction: Double? = nil, priority: Int? = nil,
        notes: [(String, String)] = []
    ) -> JSONValue {
        var members: JSONObject = [
            "versionCodes": .array(codes.map { .string(String($0)) }), "status": .string(status),
        ]
        if let name { members["name"] = .string(name) }
        if let userFraction { members["userFraction"] = .number(String(userFraction)) }
        if let priority { members["inAppUpdatePriority"] = .number(String(priority)) }
        if !notes.isEmpty {
            members["releaseNotes"] = .array(notes.map { ["language": .string($0.0), "text": .string($0.1)] })
        }
        return .object(members)
    }

    /// Sets the track the API answers from now on.
    public func answer(track: JSONValue) { state.withLockedValue { $0.track = track } }

    /// Makes `call` answer `failure` from now on (nil: as usual again).
    public func fail(_ call: Call, _ failure: Failure?) { state.withLockedValue { $0.failures[call] = failure } }

    /// Makes each track read wait `delay` before it answers, from now on.
    public func delayTracks(_ delay: Duration) { state.withLockedValue { $0.trackDelay = delay } }

    /// The most track reads that were being answered at the same time.
    public var mostReadsInFlight: Int { state.withLockedValue { $0.mostReadsInFlight } }

    /// Sets the `expires_in` of the tokens handed out from now on.
    public func expiresIn(_ seconds: Int) { state.withLockedValue { $0.expiresIn = seconds } }

    public var assertions: [String] { state.withLockedValue { $0.assertions } }
    public var grantTypes: [String] { state.withLockedValue { $0.grantTypes } }
    /// Tokens handed out.
    public var tokens: Int { state.withLockedValue { $0.tokens } }
    public var editsOpened: [String] { state.withLockedValue { $0.editsOpened } }
    public var editsDeleted: [String] { state.withLockedValue { $0.editsDeleted } }
    /// `edit/track` of each track read.
    public var trackReads: [String] { state.withLockedValue { $0.trackReads } }
    /// The `Authorization` header of every API call.
    public var authorizations: [String] { state.withLockedValue { $0.authorizations } }

    private func failure(_ call: Call) async throws -> Response? {
        guard let failure = state.withLockedValue({ $0.failures[call] }) else { return nil }
        switch failure {
        case .status(let status):
            let body: JSONValue = [
                "error": [
                    "code": .number(String(status)), "message": "The caller does not have permission",
                    "status": "PERMISSION_DENIED",
                ]
            ]
            return Self.json(body.jsonString, status: status)
        case .body(let text): return Self.json(text)
        case .oversized: return Self.json(String(repeating: " ", count: 3 << 20) + "{}")
        case .slow(let delay):
            try await Task.sleep(for: delay)
            return Self.json("{}")
        case .redirect(let location):
            return Response(status: .found, headers: [.location: location])
        }
    }

    private func token(_ form: String) async throws -> Response {
        var fields: [String: String] = [:]
        for pair in form.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0) }
            guard parts.count == 2 else { continue }
            fields[parts[0]] = parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        let expires = state.withLockedValue { state in
            state.assertions.append(fields["assertion"] ?? "")
            state.grantTypes.append(fields["grant_type"] ?? "")
            return state.expiresIn
        }
        if let failure = try await failure(.token) { return failure }
        let count = state.withLockedValue { state in
            state.tokens += 1
            return state.tokens
        }
        let body: JSONValue = [
            "access_token": .string("ya29.test-token-\(count)"), "expires_in": .number(String(expires)),
            "token_type": "Bearer",
        ]
        return Self.json(body.jsonString)
    }

    private func record(_ request: Request) {
        let authorization = request.headers[.authorization] ?? ""
        state.withLockedValue { $0.authorizations.append(authorization) }
    }

    private func insertEdit(_ request: Request, package: String) async throws -> Response {
        record(request)
        if let failure = try await failure(.insertEdit) { return failure }
        let id = state.withLockedValue { state in
            state.nextEdit += 1
            let id = "edit-\(state.nextEdit)"
            state.editsOpened.append(id)
            return id
        }
        // `AppEdit`: its id and when it expires (seconds since the epoch, as a string).
        let body: JSONValue = ["id": .string(id), "expiryTimeSeconds": "1999999999"]
        return Self.json(body.jsonString)
    }

    private func getTrack(_ request: Request, edit: String) async throws -> Response {
        record(request)
        if let failure = try await failure(.getTrack) { return failure }
        let (track, delay) = state.withLockedValue { state in
            state.trackReads.append(edit)
            state.readsInFlight += 1
            state.mostReadsInFlight = max(state.mostReadsInFlight, state.readsInFlight)
            return (state.track, state.trackDelay)
        }
        defer { state.withLockedValue { $0.readsInFlight -= 1 } }
        if delay > .zero { try await Task.sleep(for: delay) }
        return Self.json(track.jsonString)
    }

    private func deleteEdit(_ request: Request, edit: String) async throws -> Response {
        record(request)
        if let failure = try await failure(.deleteEdit) { return failure }
        state.withLockedValue { $0.editsDeleted.append(edit) }
        return Response(status: .noContent)
    }

    private static func json(_ text: String, status: Int = 200) -> Response {
        Response(
            status: .init(code: status), headers: [.contentType: "application/json; charset=UTF-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
