import Foundation
import Testing

@testable import RemoteConfigCore

/// `device.osVersion`: the device's OS version, compared as `app.version` compares.
@Suite("device.osVersion")
struct DeviceOSVersionTests {
    let ios15 = FetchContext(appInstanceId: "i", platform: .ios, appVersion: "3.0.0", osVersion: "15.7.2")
    let ios17 = FetchContext(appInstanceId: "i", platform: .ios, appVersion: "3.0.0", osVersion: "17.4.1")
    let unsent = FetchContext(appInstanceId: "i", platform: .ios, appVersion: "3.0.0")

    @Test("the six version operators compare part by part, missing parts are zero")
    func operators() throws {
        #expect(try truth("device.osVersion.<(['16.0'])", ios15) == .true)
        #expect(try truth("device.osVersion.<(['16.0'])", ios17) == .false)
        #expect(try truth("device.osVersion.>=(['17.4.1'])", ios17) == .true)
        #expect(try truth("device.osVersion.>(['17.4.1'])", ios17) == .false)
        #expect(try truth("device.osVersion.<=(['17.4'])", ios17) == .false)
        #expect(try truth("device.osVersion.>(['17.10'])", ios17) == .false)  // 4 < 10 numerically
        #expect(try truth("device.osVersion.==(['17.4.1.0'])", ios17) == .true)
        #expect(try truth("device.osVersion.!=(['17.4.1'])", ios17) == .false)
        #expect(try truth("device.osVersion.!=(['17.4.1'])", ios15) == .true)
        var seventeen = ios17
        seventeen.osVersion = "17"
        #expect(try truth("device.osVersion.==(['17.0.0'])", seventeen) == .true)
        #expect(try truth("version(device.osVersion) < '17.1'", seventeen) == .true)
    }

    @Test("three-valued: unknown when the caller did not send it, false when it is not a version")
    func threeValued() throws {
        #expect(try truth("device.osVersion.<(['16.0'])", unsent) == .unknown)
        #expect(try truth("!device.osVersion.<(['16.0'])", unsent) == .unknown)
        #expect(try truth("device.osVersion.<(['16.0']) || true", unsent) == .true)
        #expect(try truth("device.osVersion.<(['16.0']) && false", unsent) == .false)
        var beta = ios17
        beta.osVersion = "18.0-beta"
        #expect(try truth("device.osVersion.<(['19'])", beta) == .false)
        #expect(try truth("!device.osVersion.<(['19'])", beta) == .true)
    }

    @Test("the string methods read it as text, as for app.version")
    func stringMethods() throws {
        #expect(try truth("device.osVersion.matches(['^17\\\\.'])", ios17) == .true)
        #expect(try truth("device.osVersion.contains(['15.'])", ios17) == .false)
        #expect(try truth("device.osVersion.exactlyMatches(['15.7.2'])", ios15) == .true)
    }

    @Test("a combined force-update condition: blocked version on an OS the new build still supports")
    func combined() throws {
        let expression = "device.os == 'ios' && app.version.<(['4.0']) && device.osVersion.>=(['16.0'])"
        #expect(try truth(expression, ios17) == .true)
        #expect(try truth(expression, ios15) == .false)
        #expect(try truth(expression, unsent) == .unknown)
    }

    @Test("the inputs a template reads include the OS version only when a condition reads it")
    func inputs() throws {
        let reads = ConditionInputs([try ConditionParser.parse("device.osVersion.<(['16'])")])
        #expect(reads.fields == [.osVersion])
        let ignores = ConditionInputs([try ConditionParser.parse("app.version.<(['16'])")])
        #expect(!ignores.fields.contains(.osVersion))
    }

    static let rejected: [(String, Int, String)] = [
        ("device.osVersion == '17'", 17, "expected `.`"),
        ("device.osVersion.>=(['16', '17'])", 20, "exactly one version"),
        ("device.osVersion.>=('16')", 20, "expected `[`"),
        ("device.osversion.<(['16'])", 7, "unknown field `device.osversion`"),
        ("version(device.os) < '16'", 15, "unknown field `device.os`"),
    ]

    @Test("malformed uses are rejected with the position and what was expected", arguments: rejected)
    func rejects(expression: String, position: Int, fragment: String) {
        do {
            let tree = try ConditionParser.parse(expression)
            Issue.record("accepted \(expression) as \(tree)")
        } catch {
            #expect(error.position == position, "\(expression): \(error)")
            #expect(error.message.contains(fragment), "\(expression): \(error)")
        }
    }
}
