/// `POST …/changeRequests/{id}:approve` and `:reject`: an optional comment, and no other field.
public struct ReviewRequest: Codable, Sendable, Equatable {
    public var comment: String?

    public init(comment: String? = nil) {
        self.comment = comment
    }

    private enum CodingKeys: String, CodingKey { case comment }

    public init(from decoder: any Decoder) throws {
        try AnyKey.refuseUnknown(in: decoder, known: ["comment"], "is not a field of a review; send comment")
        comment = try decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .comment)
    }
}
