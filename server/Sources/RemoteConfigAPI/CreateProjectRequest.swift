/// `POST /v1/projects`: the new project's id and a name for people (the id when absent).
public struct CreateProjectRequest: Codable, Sendable, Equatable {
    public var projectId: String
    public var displayName: String?

    public init(projectId: String, displayName: String? = nil) {
        self.projectId = projectId
        self.displayName = displayName
    }
}
