import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import Testing

/// The bodies whose decoding carries their route's own rules (a store link, an impact request, a new rollout)
/// and the answers whose shape has a twist (a whole percent, the audit log's `project`), through
/// RemoteConfigAPI's coder exactly as the server answers them.
@Suite struct AdminBodyRulesTests {
    static let storeFields = ["version", "minimumOsVersion", "releaseNotes"]

    static func storeLink(_ json: String) throws -> StoreLinkRequest {
        try APIDecoder.decode(from: JSONValue(parsing: Array(json.utf8))) {
            try StoreLinkRequest(from: $0, storeFields: storeFields)
        }
    }

    @Test func aStoreLinkReportsEveryProblemInTheOrderItAlwaysHad() throws {
        do {
            _ = try Self.storeLink(
                #"{"intervalSeconds": 10, "country": "x", "bogus": 1, "parameters": {"a": 5, "b": "version"}}"#)
            Issue.record("a bad store link decoded")
        } catch let problems as FieldProblems {
            #expect(
                problems.problems.map(\.field) == ["bogus", "appStoreId", "country", "intervalSeconds", "parameters.a"])
            #expect(
                problems.problems.map(\.reason) == [
                    "UNKNOWN_FIELD", "REQUIRED", "INVALID_COUNTRY", "INTERVAL_TOO_SHORT", "UNKNOWN_STORE_FIELD",
                ])
            #expect(
                problems.message
                    == "the store link is not valid: bogus is not a field of a store link (and 4 more problems)")
            #expect(
                problems.problems[4].message
                    == "parameters.a must be one of version, minimumOsVersion, releaseNotes")
        }
    }

    @Test func aStoreLinkReadsIdsAsTheStoreWritesThemAndLeavesOutWhatWasNotSent() throws {
        let link = try Self.storeLink(
            #"{"appStoreId": "id123456789", "country": "JP", "lastSyncTime": null, "parameters": {"v": "version"}}"#)
        #expect(link.appStoreId == "123456789")
        #expect(link.country == "jp")
        #expect(link.enabled == nil && link.intervalSeconds == nil && link.releaseDelaySeconds == nil)
        #expect(link.parameters == StoreLinkTargets([.init(parameter: "v", field: "version")]))
        #expect(try Self.storeLink(#"{"appStoreId": 42, "intervalSeconds": 60.0}"#).intervalSeconds == 60)
        #expect(try Self.storeLink(#"{"appStoreId": 42}"#).appStoreId == "42")
    }

    @Test func anImpactRequestNamesExactlyOneCandidate() throws {
        func refusal(_ json: String) -> (String, String, String)? {
            do {
                _ = try APIDecoder.decode(ImpactRequest.self, from: Array(json.utf8))
                return nil
            } catch let problems as FieldProblems {
                let first = problems.problems[0]
                return (first.field, first.reason, problems.message)
            } catch let error as DecodingError {
                let (field, problem) = FieldProblem.of(error)
                return (field, problem.reason, problem.sentence(field: field))
            } catch {
                return nil
            }
        }
        let sentence = "name exactly one candidate: template, draft or changeRequest"
        #expect(refusal("{}")! == ("template", "REQUIRED", sentence))
        #expect(
            refusal(#"{"draft": true, "changeRequest": "1"}"#)! == ("changeRequest", "CONFLICTING_FIELDS", sentence))
        #expect(refusal(#"{"template": null}"#)! == ("template", "NOT_AN_OBJECT", "template must be a template object"))
        #expect(
            refusal(#"{"draft": true, "since": null}"#)! == ("since", "INVALID_TIME", "since must be an RFC 3339 time"))
        #expect(
            refusal(#"{"draft": true, "sample": 1}"#)! == (
                "sample", "UNKNOWN_FIELD", "sample is not a field of an impact request"
            ))
        let request = try APIDecoder.decode(
            ImpactRequest.self, from: Array(#"{"changeRequest": "changeRequests/12"}"#.utf8))
        #expect(request == ImpactRequest(candidate: .changeRequest(12)))
        #expect(try APIDecoder.decode(ImpactRequest.self, from: APIEncoder.bytes(request)) == request)
    }

    @Test func aRolloutNamesAValueOfTheWrongTypeInvalidType() throws {
        func refusal(_ json: String) -> (String, String, String)? {
            do {
                _ = try APIDecoder.decode(RolloutCreate.self, from: Array(json.utf8))
                return nil
            } catch let error as DecodingError {
                let (field, problem) = FieldProblem.of(error)
                return (field, problem.reason, problem.sentence(field: field))
            } catch {
                return nil
            }
        }
        #expect(
            refusal(#"{"parameter": "p", "value": true, "steps": []}"#)! == (
                "value", "INVALID_TYPE", "value must be a string"
            ))
        #expect(
            refusal(#"{"parameter": "p", "value": "1", "steps": [{"percent": "10"}]}"#)!
                == ("steps[0].percent", "INVALID_TYPE", "steps[0].percent must be a number"))
        #expect(
            refusal(#"{"parameter": "p", "value": "1", "steps": [{"percent": 10, "holdSeconds": 1.5}]}"#)!
                == ("steps[0].holdSeconds", "INVALID_TYPE", "steps[0].holdSeconds must be a whole number of seconds"))
        #expect(
            refusal(#"{"value": "1", "steps": [{"percent": 10, "hold": 1}]}"#)!
                == ("steps[0].hold", "UNKNOWN_FIELD", "steps[0].hold is not a step field; send percent and holdSeconds")
        )
        #expect(refusal(#"{"value": "1", "steps": []}"#)! == ("parameter", "REQUIRED", "parameter is required"))
        #expect(
            refusal(#"{"parameter": "p", "value": "1", "steps": [], "when": 1}"#)!
                == (
                    "when", "UNKNOWN_FIELD",
                    "when is not a rollout field; send audience, description, parameter, steps, value"
                ))
    }

    @Test func aWholePercentIsWrittenAsTheContractWritesIt() throws {
        let steps = [RolloutStep(percent: 10, holdSeconds: 3600), RolloutStep(percent: 0.5), RolloutStep(percent: 100)]
        #expect(
            String(decoding: try APIEncoder.bytes(steps), as: UTF8.self)
                == #"[{"percent":10,"holdSeconds":3600},{"percent":0.5},{"percent":100}]"#)
    }

    @Test func theAuditLogOfAllProjectsSaysWhichProjectAndNullForNone() throws {
        let time = Date(timeIntervalSince1970: 1_795_000_000)
        func text(_ project: String??) throws -> String {
            let entry = AuditLogEntry(
                time: time, actor: ActingKey(key: nil, displayName: "CI"), actorKey: nil,
                action: "apiKey.create",
                detail: .object(["role": .string("admin")]),
                project: project)
            let bytes = try APIEncoder.bytes(entry)
            #expect(try APIDecoder.decode(AuditLogEntry.self, from: bytes) == entry)
            return String(decoding: bytes, as: UTF8.self)
        }
        let prefix =
            #"{"time":"2026-11-18T11:06:40.000Z","actor":{"key":null,"displayName":"CI","user":null,"email":null},"actorKey":null,"action":"apiKey.create","detail":{"role":"admin"}"#
        #expect(try text(nil) == prefix + "}")
        #expect(try text(.some(nil)) == prefix + #","project":null}"#)
        #expect(try text("shop-app") == prefix + #","project":"shop-app"}"#)
    }
}
