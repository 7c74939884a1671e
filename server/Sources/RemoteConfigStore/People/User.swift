import Foundation

/// A person who signed in with the team's identity provider, as the provider described them at their last
/// sign-in.
public struct User: Sendable, Equatable {
    /// Ours (`users/<id>`); the provider's own identifier is `issuer` with `subject`.
    public let id: String
    public let issuer: String
    public let subject: String
    public let email: String
    /// Whether the provider vouches for `email`: only then does it count for `user:` and `domain:` bindings.
    public let emailVerified: Bool
    public let displayName: String
    public let groups: [String]
    public let firstSignIn: Date
    public let lastSignIn: Date

    /// Creates a person as the store reads them.
    public init(
        id: String, issuer: String, subject: String, email: String, emailVerified: Bool, displayName: String,
        groups: [String], firstSignIn: Date, lastSignIn: Date
    ) {
        self.id = id
        self.issuer = issuer
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.groups = groups
        self.firstSignIn = firstSignIn
        self.lastSignIn = lastSignIn
    }

    /// The members of role bindings this person is: their verified email and its domain, and their groups.
    public var members: Set<String> {
        var members = Set(groups.map { "group:\($0)" })
        let address = email.lowercased()
        if emailVerified, let at = address.lastIndex(of: "@"), at != address.startIndex {
            members.insert("user:\(address)")
            members.insert("domain:\(address[address.index(after: at)...])")
        }
        return members
    }
}

/// What the provider said about a person at a sign-in: the claims the server keeps.
public struct SignedInPerson: Sendable, Equatable {
    public var issuer: String
    public var subject: String
    public var email: String
    public var emailVerified: Bool
    public var displayName: String
    public var groups: [String]

    /// Creates the description of a person from verified claims.
    public init(
        issuer: String, subject: String, email: String, emailVerified: Bool, displayName: String, groups: [String]
    ) {
        self.issuer = issuer
        self.subject = subject
        self.email = email
        self.emailVerified = emailVerified
        self.displayName = displayName
        self.groups = groups
    }
}
