/// The metadata of a published template version, as Firebase spells it.
///
/// Every field is optional text because clients may send partial objects and the server,
/// not the client, decides them on publish.
public struct TemplateVersion: Sendable, Hashable {
    /// Who published it.
    public struct User: Sendable, Hashable {
        /// The acting key's display name (Firebase: the user's email).
        public var email: String?
        /// Members this version does not know (`name`, `imageUrl`, …), re-emitted unchanged.
        public var extra: JSONObject

        /// Creates a user.
        public init(email: String? = nil, extra: JSONObject = [:]) {
            self.email = email
            self.extra = extra
        }
    }

    /// A decimal string, `"1"` for the first version.
    public var versionNumber: String?
    /// RFC 3339 UTC with milliseconds, e.g. `2026-11-22T10:00:00.000Z`.
    public var updateTime: String?
    /// Who published it.
    public var updateUser: User?
    /// `REST_API`, `CONSOLE`, `CLI`, …
    public var updateOrigin: String?
    /// `INCREMENTAL_UPDATE`, `FORCED_UPDATE` or `ROLLBACK`.
    public var updateType: String?
    /// The publisher's note.
    public var description: String?
    /// For a rollback, the version it copied.
    public var rollbackSource: String?
    /// Members this version does not know (`isLegacy`, …), re-emitted unchanged.
    public var extra: JSONObject

    /// Creates version metadata.
    public init(
        versionNumber: String? = nil,
        updateTime: String? = nil,
        updateUser: User? = nil,
        updateOrigin: String? = nil,
        updateType: String? = nil,
        description: String? = nil,
        rollbackSource: String? = nil,
        extra: JSONObject = [:]
    ) {
        self.versionNumber = versionNumber
        self.updateTime = updateTime
        self.updateUser = updateUser
        self.updateOrigin = updateOrigin
        self.updateType = updateType
        self.description = description
        self.rollbackSource = rollbackSource
        self.extra = extra
    }
}
