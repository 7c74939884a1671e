import Foundation
import RemoteConfigAPI
import RemoteConfigStore

/// People, sessions and bindings as the API writes them.
enum PeopleJSON {
    static func person(_ user: User, roles: [RoleGrant]? = nil, times: Bool = false) -> PersonBody {
        PersonBody(
            name: "users/\(user.id)", email: user.email, emailVerified: user.emailVerified,
            displayName: user.displayName, groups: user.groups, firstSignInTime: times ? user.firstSignIn : nil,
            lastSignInTime: times ? user.lastSignIn : nil, roles: roles)
    }

    static func session(_ session: UserSession) -> SessionBody {
        SessionBody(
            name: "sessions/\(session.id)", kind: session.kind.rawValue.uppercased(), createTime: session.createTime,
            lastSeenTime: session.lastSeenTime, expireTime: session.expireTime)
    }

    static func binding(_ binding: RoleBinding) -> RoleBindingBody {
        let creator =
            binding.createdBy.map { actor in
                BindingCreator(
                    user: actor.userId.map { "users/\($0)" }, email: actor.email,
                    key: actor.keyId.map { "apiKeys/\($0)" }, displayName: actor.displayName)
            } ?? BindingCreator(bootstrap: true)
        return RoleBindingBody(
            name: "roleBindings/\(binding.id)", member: binding.member, role: binding.role.rawValue,
            project: binding.project, createTime: binding.createTime, createdBy: creator)
    }

    /// A person's roles from their bindings: the highest on every project, then each project where a binding
    /// gives more than that.
    static func roles(_ bindings: [RoleBinding]) -> [RoleGrant] {
        func highest(_ roles: [Role]) -> Role? { roles.max(by: { $1.covers($0) && $0 != $1 }) }
        let global = highest(bindings.filter { $0.project == nil }.map(\.role))
        var grants = global.map { [RoleGrant(role: $0.rawValue, project: nil)] } ?? []
        let projects = Set(bindings.compactMap(\.project)).sorted()
        for project in projects {
            guard let role = highest(bindings.filter { $0.applies(on: project) }.map(\.role)), role != global else {
                continue
            }
            grants.append(RoleGrant(role: role.rawValue, project: project))
        }
        return grants
    }

    /// What `/v1/me` says a caller may do.
    static func roles(of caller: Caller) -> [RoleGrant] {
        switch caller.credential {
        case .session:
            return roles(caller.bindings)
        case .key(let key):
            guard key.role != .client else { return [RoleGrant(role: "client", project: key.project)] }
            if let project = key.project {
                return caller.role(on: project).map { [RoleGrant(role: $0.rawValue, project: project)] } ?? []
            }
            guard key.owner != nil else { return [RoleGrant(role: key.role.rawValue, project: nil)] }
            return roles(caller.bindings).compactMap { grant in
                guard let role = caller.role(on: grant.project) else { return nil }
                return RoleGrant(role: role.rawValue, project: grant.project)
            }
        }
    }
}
