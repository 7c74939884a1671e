/// `GET /v1/projects`: the projects the key sees, by id.
public struct ProjectList: Codable, Sendable, Equatable {
    public var projects: [Project]

    public init(projects: [Project]) {
        self.projects = projects
    }
}
