/// `POST …/remoteConfig:rollback`: the version to publish again (a string or a whole number) and the origin the
/// caller claims (`CONSOLE`, `CLI`; anything else is recorded as `REST_API`).
public struct RollbackRequest: Codable, Sendable, Equatable {
    public var versionNumber: VersionNumberText
    public var updateOrigin: String?

    public init(versionNumber: String, updateOrigin: String? = nil) {
        self.versionNumber = VersionNumberText(versionNumber)
        self.updateOrigin = updateOrigin
    }
}
