/// `{}`: the answer of a call that has nothing to say but that it worked (revoking a key, deleting a webhook).
public struct EmptyBody: Codable, Sendable, Equatable {
    public init() {}
}
