import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import Testing

/// The admin API's bodies through RemoteConfigAPI's coder: members in the server's order, absent optionals left
/// out, RFC 3339 times, and every refusal naming the field's path and the reason the API has always used.
@Suite struct APIBodyCodingTests {
    static let time = Date(timeIntervalSince1970: 1_795_000_000.25)

    @Test func answersKeepTheirMemberOrderLeaveOutAbsentOptionalsAndWriteRFC3339Times() throws {
        let project = Project(
            projectId: "shop-app", displayName: "Shop", createTime: Self.time, requireApproval: false,
            approvalsRequired: 1)
        let text = String(decoding: try APIEncoder.bytes(project), as: UTF8.self)
        #expect(
            text
                == #"{"projectId":"shop-app","displayName":"Shop","createTime":"2026-11-18T11:06:40.250Z","requireApproval":false,"approvalsRequired":1,"environmentName":null,"promotesTo":null,"localParameters":[]}"#
        )
        #expect(try APIDecoder.decode(Project.self, from: Array(text.utf8)) == project)

        let webhook = Webhook(
            name: "webhooks/w1", url: "https://hooks.example.com/rc", events: ["*"], format: "JSON", description: "",
            enabled: true, createTime: Self.time)
        #expect(!String(decoding: try APIEncoder.bytes(webhook), as: UTF8.self).contains("secret"))
    }

    @Test func aGooglePlayLinkShowsItsAccountNeverItsKeyAndAKeyFileIsWrittenAsGoogleWritesIt() throws {
        let link = GooglePlayLink(
            enabled: true, packageName: "com.example.app", track: "production", intervalSeconds: 3600,
            serviceAccount: .init(clientEmail: "rc@p.iam.gserviceaccount.com", privateKeyId: "abc123"),
            stagedRollouts: "COMPLETED_ONLY", autoApprove: false)
        let text = String(decoding: try APIEncoder.bytes(link), as: UTF8.self)
        #expect(
            text.hasPrefix(
                #"{"enabled":true,"packageName":"com.example.app","track":"production","intervalSeconds":3600,"serviceAccount":{"clientEmail":"rc@p.iam.gserviceaccount.com","privateKeyId":"abc123"},"parameters":{},"condition":null,"#
            ), "\(text)")
        #expect(text.contains(#""liveRelease":null"#) && !text.contains("private_key"))
        #expect(try APIDecoder.decode(GooglePlayLink.self, from: Array(text.utf8)) == link)

        let key = GooglePlayServiceAccountKeyFile(
            clientEmail: "rc@p.iam.gserviceaccount.com", privateKeyId: "abc123",
            privateKey: "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n")
        #expect(!key.description.contains("MIIE"))
        let request = GooglePlayLinkRequest(packageName: "com.example.app", serviceAccountKey: key)
        let sent = String(decoding: try APIEncoder.bytes(request), as: UTF8.self)
        #expect(
            sent.contains(#""client_email":"rc@p.iam.gserviceaccount.com""#)
                && sent.contains(#""type":"service_account""#))
        #expect(try APIDecoder.decode(GooglePlayLinkRequest.self, from: Array(sent.utf8)) == request)
        do {
            _ = try APIDecoder.decode(
                GooglePlayLinkRequest.self, from: Array(#"{"packageName": "app", "serviceAccountKey": {}}"#.utf8))
            Issue.record("a link without a package name or a key's members was read")
        } catch let problems as FieldProblems {
            #expect(
                problems.problems.map(\.field) == [
                    "packageName", "serviceAccountKey.client_email", "serviceAccountKey.private_key_id",
                    "serviceAccountKey.private_key",
                ])
        }
    }

    @Test func aKeyOfEveryProjectSaysSoWithNull() throws {
        let key = APIKey(
            name: "apiKeys/k1", displayName: "CI", role: "admin", project: nil, keyPrefix: "rc_admin_ab",
            createTime: Self.time)
        let text = String(decoding: try APIEncoder.bytes(key), as: UTF8.self)
        #expect(text.contains(#""project":null"#))
        #expect(!text.contains(#""key""#))
    }

    /// The field path and reason a refused body is answered with.
    static func refusal<T: Decodable>(_ type: T.Type, _ json: String) -> (String, String)? {
        do {
            _ = try APIDecoder.decode(type, from: Array(json.utf8))
            return nil
        } catch let error as DecodingError {
            let (field, problem) = FieldProblem.of(error)
            return (field, problem.reason)
        } catch {
            return ("?", "\(error)")
        }
    }

    @Test func refusalsNameTheFieldPathAndTheReason() throws {
        #expect(Self.refusal(CreateProjectRequest.self, #"{"displayName": "x"}"#)! == ("projectId", "REQUIRED"))
        #expect(Self.refusal(CreateProjectRequest.self, #"{"projectId": null}"#)! == ("projectId", "REQUIRED"))
        #expect(Self.refusal(CreateProjectRequest.self, #"{"projectId": 42}"#)! == ("projectId", "NOT_A_STRING"))
        #expect(
            Self.refusal(CreateProjectRequest.self, #"{"projectId": "a\u0000b"}"#)!
                == ("projectId", "INVALID_CHARACTER"))
        #expect(
            Self.refusal(UpdateProjectRequest.self, #"{"requireApproval": "yes"}"#)! == (
                "requireApproval", "NOT_A_BOOLEAN"
            ))
        #expect(Self.refusal(UpdateProjectRequest.self, #"{"owner": "me"}"#)! == ("owner", "UNKNOWN_FIELD"))
        #expect(Self.refusal(WebhookList.self, #"{"webhooks": {}}"#)! == ("webhooks", "NOT_AN_ARRAY"))
        #expect(
            Self.refusal(WebhookList.self, #"{"webhooks": [{"name": 1}]}"#)! == ("webhooks[0].name", "NOT_A_STRING"))
        #expect(Self.refusal(Project.self, "[1,")! == ("body", "MALFORMED_JSON"))
    }

    @Test func aWholeNumberMayBeWrittenWithAFractionAndNullIsAnAbsentOptional() throws {
        let json =
            #"{"name": "apiKeys/k", "displayName": "", "role": "viewer", "project": null, "keyPrefix": "p", "createTime": "2026-11-19T07:06:40Z"}"#
        #expect(try APIDecoder.decode(APIKey.self, from: Array(json.utf8)).project == nil)
        let delivery =
            #"{"id": "d", "type": "ping", "state": "PENDING", "attempts": 2.0, "createTime": "2026-11-19T07:06:40Z"}"#
        #expect(try APIDecoder.decode(WebhookDelivery.self, from: Array(delivery.utf8)).attempts == 2)
        #expect(
            Self.refusal(WebhookDelivery.self, delivery.replacingOccurrences(of: "2.0", with: "2.5"))! == (
                "attempts", "NOT_A_NUMBER"
            ))
    }
}
