import Foundation
import RemoteConfigCore
import RemoteConfigStore

/// Which client call: a fetch, or an OpenFeature (OFREP) evaluation of every flag or of one. All three are
/// evaluated the same way, from the same remembered answers.
enum ClientRoute: Sendable, Equatable {
    case fetch(project: Substring)
    /// `POST /ofrep/v1/evaluate/flags`.
    case ofrepFlags
    /// `POST /ofrep/v1/evaluate/flags/{key}`.
    case ofrepFlag(key: Substring)

    /// The route without its parameters, as metrics and the access log name it.
    enum Kind: Int, CaseIterable, Sendable {
        case fetch, ofrepFlags, ofrepFlag

        /// The route as the router names it.
        var path: String {
            switch self {
            case .fetch: ClientPaths.fetch
            case .ofrepFlags: ClientPaths.ofrepFlags
            case .ofrepFlag: ClientPaths.ofrepFlag
            }
        }

        /// The kind of the route called `path`, if it is a client call's.
        init?(path: String) {
            guard let kind = Self.allCases.first(where: { $0.path == path }) else { return nil }
            self = kind
        }

        /// The query parameters the route takes.
        var queryParameters: Set<String> {
            switch self {
            case .fetch, .ofrepFlag: Self.keyOnly
            case .ofrepFlags: Self.refetch
            }
        }

        // Made once: the sets are asked for on every call.
        private static let keyOnly: Set<String> = ["key"]
        /// What a provider adds to a refetch that an OFREP stream event caused (see OFREP's ADR 0008).
        private static let refetch: Set<String> = ["key", "flagConfigEtag", "flagConfigLastModified"]
    }

    var kind: Kind {
        switch self {
        case .fetch: .fetch
        case .ofrepFlags: .ofrepFlags
        case .ofrepFlag: .ofrepFlag
        }
    }

    /// Records the access-log line of this call, its path written from parts (no string built per call).
    func record(in accessLog: AccessLog, status: Int, duration: Duration, requestID: String) {
        switch self {
        case .fetch(let project):
            accessLog.record(
                method: "POST", prefix: ClientPaths.projects, project, suffix: ClientPaths.fetchSuffix, status: status,
                duration: duration, requestID: requestID)
        case .ofrepFlags:
            accessLog.record(
                method: "POST", prefix: ClientPaths.ofrepFlags, status: status, duration: duration,
                requestID: requestID)
        case .ofrepFlag(let key):
            accessLog.record(
                method: "POST", prefix: ClientPaths.ofrepFlagPrefix, key, status: status, duration: duration,
                requestID: requestID)
        }
    }
}
