import Foundation
import Logging
import PostgresNIO

/// The events the stores report to webhooks, each recorded inside the transaction of its change.
public enum WebhookEvents {
    /// The facts of `template.published`; the deliverer adds the diff from the two immutable versions.
    public struct Published: Codable, Sendable, Equatable {
        public var versionNumber: String
        public var previousVersionNumber: String
        public var updateOrigin: UpdateOrigin
        public var updateType: UpdateType
        public var description: String
        public var rollbackSource: String?
        /// A promotion's source: `{"project", "versionNumber"}`.
        public var promotedFrom: PromotedFromFacts?
    }

    /// Where a promoted version came from, as webhooks say it (the version number as text, as everywhere).
    public struct PromotedFromFacts: Codable, Sendable, Equatable {
        public var project: String
        public var versionNumber: String
    }

    /// The facts of a `changeRequest.*` event.
    public struct ChangeRequestChanged: Codable, Sendable, Equatable {
        public var changeRequest: String
        public var state: String
        public var description: String
        public var comment: String?
    }

    /// Records `template.published` for `version`, published over `previous`.
    static func published(
        _ version: StoredVersion, previous: Int64, actor: AuditActor, on connection: PostgresConnection,
        logger: Logger
    ) async throws {
        let facts = Published(
            versionNumber: String(version.versionNumber), previousVersionNumber: String(previous),
            updateOrigin: version.updateOrigin, updateType: version.updateType, description: version.description,
            rollbackSource: version.rollbackSource.map { String($0) },
            promotedFrom: version.promotedFrom.map {
                PromotedFromFacts(project: $0.project, versionNumber: String($0.versionNumber))
            })
        try await WebhookStore.enqueue(
            version.project, type: .templatePublished, actor: actor, dataJSON: try json(facts), on: connection,
            logger: logger)
    }

    /// Records `event` (one of `changeRequest.*`) for `request` as it is now.
    static func changeRequest(
        _ event: WebhookEventType, _ request: ChangeRequest, comment: String?, actor: AuditActor,
        on connection: PostgresConnection, logger: Logger
    ) async throws {
        let facts = ChangeRequestChanged(
            changeRequest: ChangeRequest.name(request.id), state: request.state.rawValue,
            description: request.description, comment: comment?.isEmpty == false ? comment : nil)
        try await WebhookStore.enqueue(
            request.project, type: event, actor: actor, dataJSON: try json(facts), on: connection,
            logger: logger)
    }

    /// The facts of `storeSync.failed`: what went wrong, how often in a row, and when the next attempt is
    /// (`null` for a disabled link, which nothing retries: its sync was a `:run`).
    public struct StoreSyncFailed: Codable, Sendable, Equatable {
        public var appStoreId: String
        public var country: String
        public var error: String
        public var consecutiveFailures: Int
        public var nextAttemptTime: String?

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(appStoreId, forKey: .appStoreId)
            try container.encode(country, forKey: .country)
            try container.encode(error, forKey: .error)
            try container.encode(consecutiveFailures, forKey: .consecutiveFailures)
            // Written as null rather than left out, so a receiver sees the field it documents.
            try container.encode(nextAttemptTime, forKey: .nextAttemptTime)
        }
    }

    /// Records `storeSync.failed` for `link` as the failed sync left it.
    static func storeSyncFailed(
        _ link: StoreLink, on connection: PostgresConnection, actor: AuditActor, logger: Logger
    ) async throws {
        let facts = StoreSyncFailed(
            appStoreId: link.settings.appStoreId, country: link.settings.country,
            error: link.status.lastError ?? "", consecutiveFailures: link.status.consecutiveFailures,
            nextAttemptTime: link.settings.enabled ? link.status.nextSyncTime.formatted(.iso8601) : nil)
        try await WebhookStore.enqueue(
            link.project, type: .storeSyncFailed, actor: actor, dataJSON: try json(facts), on: connection,
            logger: logger)
    }

    /// The facts of `storeSync.failed` for a Google Play link: `store` says which, then as for the App Store.
    public struct GooglePlaySyncFailed: Codable, Sendable, Equatable {
        public var store: String
        public var packageName: String
        public var track: String
        public var error: String
        public var consecutiveFailures: Int
        public var nextAttemptTime: String?

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(store, forKey: .store)
            try container.encode(packageName, forKey: .packageName)
            try container.encode(track, forKey: .track)
            try container.encode(error, forKey: .error)
            try container.encode(consecutiveFailures, forKey: .consecutiveFailures)
            try container.encode(nextAttemptTime, forKey: .nextAttemptTime)
        }
    }

    /// Records `storeSync.failed` for `link`, the Google Play link as that failure left it.
    static func googlePlaySyncFailed(
        _ link: GooglePlayLink, on connection: PostgresConnection, actor: AuditActor, logger: Logger
    ) async throws {
        let facts = GooglePlaySyncFailed(
            store: "google_play", packageName: link.settings.packageName, track: link.settings.track,
            error: link.status.lastError ?? "", consecutiveFailures: link.status.consecutiveFailures,
            nextAttemptTime: link.settings.enabled ? link.status.nextSyncTime.formatted(.iso8601) : nil)
        try await WebhookStore.enqueue(
            link.project, type: .storeSyncFailed, actor: actor, dataJSON: try json(facts), on: connection,
            logger: logger)
    }

    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
