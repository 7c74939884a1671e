/// `POST /v1/apiKeys`: the role, the project it is limited to (required for a client key) and a name for people.
public struct CreateAPIKeyRequest: Codable, Sendable, Equatable {
    public var displayName: String?
    public var role: String
    public var project: String?

    public init(displayName: String? = nil, role: String, project: String? = nil) {
        self.displayName = displayName
        self.role = role
        self.project = project
    }
}
