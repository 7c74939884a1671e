import Foundation
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// Approval means another person looked: a key that stands for the author (minted by the author's key, before
/// or after the change request was opened, or bearing the author's name) does not count, and a revoked key's
/// approval stops counting.
@Suite struct SelfApprovalTests {
    /// Creates a key as `token`'s key (a project admin minting one).
    static func mint(
        _ app: TestApp.Session, token: String, role: String = "editor", name: String
    ) async throws -> (secret: String, id: String) {
        let key = try await app.admin.with(token: token).createKey(role: role, project: "shop-app", name: name)
        return (key.key ?? "", key.id)
    }

    @Test func keysTheAuthorMintedCannotApprove() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            try await Workflow.requireApproval(app, true)
            let alice = try await app.createKey(role: "admin", project: "shop-app", name: "Alice")
            // Minted by Alice before she opens the request: still her identity (the minted-key loophole).
            let before = try await Self.mint(app, token: alice.secret, name: "Bob")
            let id = try await Workflow.propose(app, token: alice.secret)

            let minted = try await Self.mint(app, token: alice.secret, name: "reviewer")
            let byMinted = try await Workflow.act(app, id, "approve", token: minted.secret)
            #expect(byMinted.status == 403, "\(byMinted.text)")
            #expect(byMinted.errorReasons == ["SELF_APPROVAL"])
            #expect(byMinted.text.contains("made by the author's key"), "\(byMinted.text)")
            // Nor through a key the minted key mints in turn.
            let mintedAdmin = try await Self.mint(app, token: alice.secret, role: "admin", name: "ops")
            let grandchild = try await Self.mint(app, token: mintedAdmin.secret, name: "Carol")
            #expect(
                try await Workflow.act(app, id, "approve", token: grandchild.secret).errorReasons == ["SELF_APPROVAL"])
            // Nor a key with the author's display name, whoever made it.
            let namesake = try await app.createKey(role: "editor", project: "shop-app", name: " alice ")
            let byNamesake = try await Workflow.act(app, id, "approve", token: namesake.secret)
            #expect(byNamesake.errorReasons == ["SELF_APPROVAL"], "\(byNamesake.text)")
            #expect(byNamesake.text.contains("display name"), "\(byNamesake.text)")
            #expect(try await Workflow.get(app, id).changeRequest.state == "OPEN")

            // A key Alice made before opening the request stands for her too.
            let byBefore = try await Workflow.act(app, id, "approve", token: before.secret)
            #expect(byBefore.errorReasons == ["SELF_APPROVAL"], "\(byBefore.text)")
            // Bob's key is Alice's sibling, made by the same key: his approval counts.
            let bob = try await app.createKey(role: "editor", project: "shop-app", name: "Bob")
            let byBob = try await Workflow.act(app, id, "approve", token: bob.secret)
            #expect(byBob.status == 200, "\(byBob.text)")
            #expect(try byBob.changeRequest.state == "APPROVED")
        }
    }

    /// Names that look like the author's are the author's name: a Cyrillic letter, a zero-width space, a
    /// soft hyphen, fullwidth letters or another case do not make another person.
    @Test func keysNamedToLookLikeTheAuthorCannotApprove() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            try await Workflow.requireApproval(app, true)
            let lead = try await app.createKey(role: "editor", project: "shop-app", name: "Lead")
            let id = try await Workflow.propose(app, token: lead.secret)
            for name in [
                "L\u{0435}ad", "Le\u{200B}ad", "Le\u{00AD}ad", "\u{FF2C}\u{FF45}\u{FF41}\u{FF44}", "LEAD",
                "\u{216C}ead",
            ] {
                let namesake = try await app.createKey(role: "editor", project: "shop-app", name: name)
                let approval = try await Workflow.act(app, id, "approve", token: namesake.secret)
                #expect(
                    approval.errorReasons == ["SELF_APPROVAL"], "\(name.unicodeScalars.map(\.value)): \(approval.text)")
            }
            #expect(try await Workflow.get(app, id).changeRequest.state == "OPEN")
            // A name that only shares letters is another person's.
            let leah = try await app.createKey(role: "editor", project: "shop-app", name: "Leah")
            #expect(try await Workflow.act(app, id, "approve", token: leah.secret).status == 200)
        }
    }

    @Test func revokingAKeyWithdrawsItsPendingApprovals() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            try await Workflow.requireApproval(app, true)
            let author = try await app.createKey(role: "editor", project: "shop-app", name: "Alice")
            let reviewer = try await app.createKey(role: "editor", project: "shop-app", name: "Bob")
            let id = try await Workflow.propose(app, token: author.secret)
            let later = Date().addingTimeInterval(3600)
            let scheduled = try await Workflow.propose(app, token: author.secret, publishTime: later)
            for request in [id, scheduled] {
                #expect(try await Workflow.act(app, request, "approve", token: reviewer.secret).status == 200)
            }
            #expect(try await Workflow.get(app, id).changeRequest.state == "APPROVED")
            #expect(try await Workflow.get(app, scheduled).changeRequest.state == "SCHEDULED")

            let revoked = try await app.call(.delete, "/v1/apiKeys/\(reviewer.id)")
            #expect(revoked.status == 200 || revoked.status == 204, "\(revoked.text)")
            for request in [id, scheduled] {
                let read = try await Workflow.get(app, request)
                #expect(try read.changeRequest.state == "OPEN", "\(read.text)")
                #expect(try read.changeRequest.approvals.isEmpty, "\(read.text)")
            }
            let publish = try await Workflow.act(app, id, "publish", token: author.secret)
            #expect(publish.status == 403, "\(publish.text)")
            #expect(try await Workflow.versions(app).count == 1)
        }
    }
}
