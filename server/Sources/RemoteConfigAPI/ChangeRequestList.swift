/// `GET …/changeRequests`: one page, newest first, and the token of the next page when there is one.
public struct ChangeRequestList: Codable, Sendable, Equatable {
    public var changeRequests: [ChangeRequest]
    public var nextPageToken: String?

    public init(changeRequests: [ChangeRequest], nextPageToken: String? = nil) {
        self.changeRequests = changeRequests
        self.nextPageToken = nextPageToken
    }
}
