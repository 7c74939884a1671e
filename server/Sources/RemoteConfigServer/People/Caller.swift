import Foundation
import RemoteConfigStore

/// Who is calling an admin route: a key, a person's key, or a person signed in through a session, with the
/// roles they have now (worked out on every call from the role bindings, so a removed binding counts at once).
struct Caller: Sendable {
    /// What the caller authenticated with.
    enum Credential: Sendable {
        case key(APIKey)
        /// A console cookie, or a personal token from `remote-config login`.
        case session(UserSession)
    }

    let credential: Credential
    /// The person: the session's, or the key's owner; nil for a key without an owner.
    let person: User?
    /// The person's role bindings (empty without a person).
    let bindings: [RoleBinding]
    /// What the call came through, when not the API directly (`mcp`): the audit entry's `"via"`.
    var via: String?

    init(credential: Credential, person: User?, bindings: [RoleBinding], via: String? = nil) {
        self.credential = credential
        self.person = person
        self.bindings = bindings
        self.via = via
    }

    /// The key the call came with, if any.
    var key: APIKey? {
        if case .key(let key) = credential { return key }
        return nil
    }

    /// The only project a key opens; nil for a person's session and for keys of every project.
    var project: String? { key?.project }

    /// Who is calling, as one text: the person (whichever of their keys or sessions), else the key.
    var identity: String { person.map { "user:\($0.id)" } ?? "key:\(key?.id ?? "")" }

    /// The caller as the audit log, versions and webhooks record it.
    var auditActor: AuditActor {
        AuditActor(
            keyId: key?.id, displayName: key?.displayName ?? person?.displayName ?? "", userId: person?.id,
            email: person?.email, via: via)
    }

    /// The person's role from bindings on `project` (nil: on every project, from global bindings alone).
    func personRole(on project: String?) -> Role? {
        bindings.filter { binding in
            guard let project else { return binding.project == nil }
            return binding.applies(on: project)
        }.map(\.role).max(by: { $1.covers($0) && $0 != $1 })
    }

    /// The role the caller may act with on `project` (nil: every project at once): a key's own role, capped
    /// by its owner's current role when it has an owner; a session's, its person's.
    func role(on project: String?) -> Role? {
        switch credential {
        case .session:
            return personRole(on: project)
        case .key(let key):
            if let own = key.project, project != own { return nil }
            guard key.owner != nil else { return key.role }
            guard let owner = personRole(on: project ?? key.project) else { return nil }
            if key.role == .client { return owner.covers(.editor) ? .client : nil }
            return owner.covers(key.role) ? key.role : owner
        }
    }

    /// The projects on which the caller has at least `role`; nil for every project.
    func projects(with role: Role) -> Set<String>? {
        if let scoped = self.role(on: nil), scoped.covers(role) { return nil }
        if let own = project { return self.role(on: own)?.covers(role) == true ? [own] : [] }
        guard person != nil else { return [] }
        return Set(
            bindings.compactMap { binding in
                guard let project = binding.project, self.role(on: project)?.covers(role) == true else { return nil }
                return project
            })
    }
}
