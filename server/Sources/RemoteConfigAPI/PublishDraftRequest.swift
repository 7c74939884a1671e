/// `POST …/remoteConfig/draft:publish`: the version's description and the origin the caller claims (`CONSOLE`,
/// `CLI`; anything else is recorded as `REST_API`). Both optional; other members are ignored.
public struct PublishDraftRequest: Codable, Sendable, Equatable {
    public var description: String?
    public var updateOrigin: String?

    public init(description: String? = nil, updateOrigin: String? = nil) {
        self.description = description
        self.updateOrigin = updateOrigin
    }
}
