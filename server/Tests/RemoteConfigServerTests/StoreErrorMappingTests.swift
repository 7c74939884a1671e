import Foundation
import RemoteConfigCore
import RemoteConfigStore
import Testing

@testable import RemoteConfigServer

/// Every case of every error type the store throws while answering a request goes through the one mapping,
/// `APIError(mapping:)`, to a status a client can act on: none is a 500 "internal error".
///
/// Each type's samples name their case through an exhaustive `switch`, so a new case fails to compile here
/// until it has an arm, and the test fails until a sample of it is in the list. (The store's start-up errors,
/// `MigrationError`, `EmbeddedPostgres.StartError` and the like, stop the server before any request.)
@Suite struct StoreErrorMappingTests {
    private static func check<E: Error>(_ samples: [E], cases: Int, arm: (E) -> Int) {
        #expect(Set(samples.map(arm)) == Set(0..<cases), "a sample of every case of \(E.self)")
        for sample in samples {
            let mapped = APIError(mapping: sample)
            #expect(mapped.status.code < 500, "\(sample) maps to \(mapped.status.code) \(mapped.message)")
            #expect(mapped.message != "internal error", "\(sample)")
        }
    }

    @Test func storeErrors() {
        let samples: [StoreError] = [
            .unavailable("refused"), .timedOut(after: .seconds(5)), .alreadyExists("project shop-app"),
            .notFound("project shop-app"),
        ]
        // The database down or slow is the one 5xx family a client is told to retry (503, 504).
        for sample in samples {
            let status = APIError(mapping: sample).status.code
            switch sample {
            case .unavailable: #expect(status == 503)
            case .timedOut: #expect(status == 504)
            case .alreadyExists: #expect(status == 409)
            case .notFound: #expect(status == 404)
            }
        }
    }

    @Test func templateStoreErrors() {
        Self.check(
            [
                TemplateStoreError.stale(current: 3), .staleDraft(current: 2), .baseChanged(base: 1, latest: 2),
                .approvalRequired(project: "shop-app"),
                .invalid([ValidationIssue(field: "conditions", reason: "RESERVED_NAME", message: "reserved")]),
            ], cases: 5
        ) {
            switch $0 {
            case .stale: 0
            case .staleDraft: 1
            case .baseChanged: 2
            case .approvalRequired: 3
            case .invalid: 4
            }
        }
    }

    @Test func changeRequestErrors() {
        Self.check(
            [
                ChangeRequestError.wrongState(id: 1, state: .published, action: "approve"), .selfApproval(id: 1),
                .selfApprovalByProxy(id: 1, why: "its author made this key"), .alreadyApproved(id: 1),
                .notAuthor(id: 1), .notApproved(id: 1, approvals: 0, required: 1),
                .baseChanged(id: 1, base: 1, latest: 2),
            ], cases: 7
        ) {
            switch $0 {
            case .wrongState: 0
            case .selfApproval: 1
            case .selfApprovalByProxy: 2
            case .alreadyApproved: 3
            case .notAuthor: 4
            case .notApproved: 5
            case .baseChanged: 6
            }
        }
    }

    @Test func rolloutErrors() {
        let issue = ValidationIssue(field: "parameters.new_checkout", reason: "INVALID_VALUE", message: "not a bool")
        Self.check(
            [
                RolloutError.wrongState(id: 1, state: .halted, action: "resume"), .parameterNotFound("new_checkout"),
                .parameterBusy(parameter: "new_checkout", rollout: 2), .invalidTemplate([issue]),
                .conditionExists("rollout_7"), .badHaltToken,
            ], cases: 6
        ) {
            switch $0 {
            case .wrongState: 0
            case .parameterNotFound: 1
            case .parameterBusy: 2
            case .invalidTemplate: 3
            case .conditionExists: 4
            case .badHaltToken: 5
            }
        }
        let invalid = APIError(mapping: RolloutError.invalidTemplate([issue]))
        #expect(invalid.status.code == 400)
        #expect(invalid.details.map(\.field) == ["parameters.new_checkout"])
    }

    @Test func storeLinkErrors() {
        Self.check([StoreLinkError.claimLost], cases: 1) {
            switch $0 {
            case .claimLost: 0
            }
        }
    }

    @Test func revisionAndLimitErrors() {
        let stale = APIError(mapping: StaleRevision("webhook", current: 4))
        #expect(stale.status.code == 412)
        #expect(stale.message.contains("the webhook changed since you read it"))
        #expect(stale.details.map(\.field) == ["If-Match"])
        let full = APIError(mapping: WebhookLimitReached(project: "shop-app", limit: 25))
        #expect(full.status.code == 400)
        #expect(full.details.map(\.reason) == ["LIMIT_EXCEEDED"])
    }
}
