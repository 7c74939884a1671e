import Foundation
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// A change request's `publishTime` comes back as it was given (to the millisecond, in UTC) over every year
/// from 0001 to 9999, and a time outside that range is refused at the door naming the field.
@Suite struct PublishTimeEdgeTests {
    @Test func publishTimesRoundTripOverTheWholeRange() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            // Approval required: the requests stay as they are, whatever their time.
            try await Workflow.requireApproval(app, true)
            let cases = [
                ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z"),
                ("1500-03-01T12:00:00Z", "1500-03-01T12:00:00.000Z"),
                ("1582-10-04T23:59:59.5Z", "1582-10-04T23:59:59.500Z"),
                ("1582-10-10T00:00:00Z", "1582-10-10T00:00:00.000Z"),
                ("1900-02-28T23:00:00-01:00", "1900-03-01T00:00:00.000Z"),
                ("2026-11-26T14:00:00.123456+09:00", "2026-11-26T05:00:00.123Z"),
                ("9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999Z"),
                ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
            ]
            for (given, expected) in cases {
                let created = try await Workflow.create(
                    app,
                    [
                        "description": .string("at \(given)"), "template": TemplateFixtures.forceUpdateValue(),
                        "publishTime": .string(given),
                    ])
                #expect(created.status == 201, "\(given): \(created.text)")
                #expect(created.value["publishTime"] == .string(expected), "\(given): \(created.text)")
                let read = try await Workflow.get(app, Workflow.id(created))
                #expect(read.value["publishTime"] == .string(expected), "\(given): \(read.text)")
                // What was answered may be sent again and means the same time.
                let again = try await Workflow.create(
                    app,
                    [
                        "description": "again", "template": TemplateFixtures.forceUpdateValue(),
                        "publishTime": .string(expected),
                    ])
                #expect(again.value["publishTime"] == .string(expected), "\(expected): \(again.text)")
            }
            // The audit log says the same times.
            let audit = try await app.call(.get, "/v1/projects/shop-app/auditLog?pageSize=100")
            for (given, expected) in cases {
                #expect(audit.text.contains(expected), "\(given): the audit log lacks \(expected)")
            }
        }
    }

    @Test func timesOutsideTheYears0001To9999AreRefusedNamingTheField() async throws {
        try await TestApp.run { app in
            try await app.createProject("shop-app")
            try await app.publish("shop-app", TemplateFixtures.forceUpdateValue())
            for given in [
                "9999-12-31T23:59:59-01:00", "0000-12-31T23:59:59Z", "0001-01-01T00:30:00+01:00",
                "0000-01-01T00:00:00Z",
            ] {
                let reply = try await Workflow.create(
                    app,
                    [
                        "description": "x", "template": TemplateFixtures.forceUpdateValue(),
                        "publishTime": .string(given),
                    ])
                #expect(reply.status == 400, "\(given): \(reply.text)")
                #expect(reply.errorFields == ["publishTime"], "\(given): \(reply.text)")
                #expect(reply.errorReasons == ["INVALID_TIME"])
            }
            let list = try await app.call(.get, Workflow.base)
            #expect(try list.changeRequests.changeRequests.isEmpty, "nothing was stored")
        }
    }
}
