import Foundation
import NIOCore
import RemoteConfigAPI
import RemoteConfigTestSupport
import Testing

/// Every bad field of a new rollout is a 400 naming it, and nothing is created or published.
@Suite struct RolloutValidationTests {
    static var step: [RolloutStep] { [.init(percent: 10)] }

    /// Bodies (JSON text), each with the one field at fault and its reason.
    static let cases: [(String, String, String)] = [
        (
            #"{"parameter": "missing_one", "value": "true", "steps": [{"percent": 10}]}"#, "parameter",
            "PARAMETER_NOT_FOUND"
        ),
        (
            #"{"parameter": "new_checkout", "value": "yes", "steps": [{"percent": 10}]}"#, "value",
            "PARAM_VALUE_TYPE_MISMATCH"
        ),
        (#"{"parameter": "new_checkout", "value": true, "steps": [{"percent": 10}]}"#, "value", "INVALID_TYPE"),
        (#"{"value": "true", "steps": [{"percent": 10}]}"#, "parameter", "REQUIRED"),
        (#"{"parameter": "new_checkout", "value": "true", "steps": []}"#, "steps", "REQUIRED"),
        (#"{"parameter": "new_checkout", "value": "true"}"#, "steps", "REQUIRED"),
        (
            #"{"parameter": "new_checkout", "value": "true", "steps": [{"percent": 10}, {"percent": 5}]}"#,
            "steps[1].percent", "NOT_INCREASING"
        ),
        (
            #"{"parameter": "new_checkout", "value": "true", "steps": [{"percent": 10}, {"percent": 10}]}"#,
            "steps[1].percent", "NOT_INCREASING"
        ),
        (
            #"{"parameter": "new_checkout", "value": "true", "steps": [{"percent": 0}]}"#, "steps[0].percent",
            "INVALID_PERCENT"
        ),
        (
            #"{"parameter": "new_checkout", "value": "true", "steps": [{"percent": 101}]}"#, "steps[0].percent",
            "INVALID_PERCENT"
        ),
        (
            #"{"parameter": "new_checkout", "value": "true", "steps": [{"percent": 10, "holdSeconds": -1}]}"#,
            "steps[0].holdSeconds", "INVALID_HOLD"
        ),
        (
            #"{"parameter": "new_checkout", "value": "true", "steps": [{"percent": 10, "holdSeconds": 1.5}]}"#,
            "steps[0].holdSeconds", "INVALID_TYPE"
        ),
        (
            #"{"parameter": "new_checkout", "value": "true", "steps": [{"percent": 10}], "audience": "device.os === 'ios'"}"#,
            "audience", "INVALID_EXPRESSION"
        ),
        (
            #"{"parameter": "new_checkout", "value": "true", "steps": [{"percent": 10}], "audiance": "x"}"#, "audiance",
            "UNKNOWN_FIELD"
        ),
    ]

    @Test(arguments: cases)
    func aBadFieldIsRefusedByNameAndNothingIsCreated(body: String, field: String, reason: String) async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            let reply = try await app.call(
                .post, RolloutFixture.base, raw: ByteBuffer(string: body), headers: [.contentType: "application/json"])
            #expect(reply.status == 400, "\(reply.text)")
            #expect(reply.errorStatus == "INVALID_ARGUMENT")
            #expect(reply.errorFields == [field], "\(reply.text)")
            #expect(reply.errorReasons == [reason], "\(reply.text)")
            let listed = try await app.call(.get, RolloutFixture.base)
            #expect(try listed.decode(RolloutList.self).rollouts.isEmpty)
            #expect(try await RolloutFixture.versions(app).count == 1)
        }
    }

    @Test func aSecondLiveRolloutOfOneParameterIsRefused() async throws {
        try await TestApp.run { app in
            _ = try await RolloutFixture.setUp(app)
            _ = try await RolloutFixture.start(app, steps: Self.step)
            let second = try await RolloutFixture.create(app, steps: Self.step)
            #expect(second.status == 409, "\(second.text)")
            #expect(second.errorReasons == ["ROLLOUT_IN_PROGRESS"])
            #expect(try await RolloutFixture.versions(app).count == 2)
        }
    }
}
