/// A published version's metadata, as Firebase writes it: one entry of `GET …/remoteConfig:listVersions`, and the
/// `version` object of a template read or publish.
public struct TemplateVersionInfo: Codable, Sendable, Equatable {
    /// Who published it.
    public struct User: Codable, Sendable, Equatable {
        /// The publishing key's name (Firebase's member name).
        public var email: String

        /// Creates a publisher.
        public init(email: String) {
            self.email = email
        }
    }

    /// Another project's published version, as a promotion names it.
    public struct Source: Codable, Sendable, Equatable {
        public var project: String
        /// A whole number, as a string.
        public var versionNumber: String

        public init(project: String, versionNumber: String) {
            self.project = project
            self.versionNumber = versionNumber
        }
    }

    /// A whole number, as a string (`"7"`).
    public var versionNumber: String
    /// RFC 3339 with milliseconds, UTC.
    public var updateTime: String
    public var updateUser: User
    /// `CONSOLE`, `REST_API` or `CLI`.
    public var updateOrigin: String
    /// `INCREMENTAL_UPDATE`, `FORCED_UPDATE` or `ROLLBACK`.
    public var updateType: String
    /// Absent when empty.
    public var description: String?
    /// The version a rollback copied, as a string.
    public var rollbackSource: String?
    /// The other project's version a promotion published here.
    public var promotedFrom: Source?

    /// Creates a version's metadata.
    public init(
        versionNumber: String, updateTime: String, updateUser: User, updateOrigin: String, updateType: String,
        description: String? = nil, rollbackSource: String? = nil, promotedFrom: Source? = nil
    ) {
        self.versionNumber = versionNumber
        self.updateTime = updateTime
        self.updateUser = updateUser
        self.updateOrigin = updateOrigin
        self.updateType = updateType
        self.description = description
        self.rollbackSource = rollbackSource
        self.promotedFrom = promotedFrom
    }
}
