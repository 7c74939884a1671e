import Foundation
import NIOConcurrencyHelpers
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// SIGKILL in the middle of a publish storm loses nothing that was acknowledged.
@Suite struct CrashDrillTests {
    @Test func everyAcknowledgedPublishSurvivesASIGKILL() async throws {
        let url = ServeCommandTests.urlText(try await TestCluster.shared.makeDatabase())
        let token = "rc_admin_crashDrillToken0000000000000000"
        let admin = ["Authorization": "Bearer \(token)"]
        let environment = ["RC_ADMIN_TOKEN": token, "RC_LOG_LEVEL": "error"]
        let server = try ServerProcess(["serve", "--port", "0", "--database-url", url], environment: environment)
        let base = "http://127.0.0.1:\(try await server.waitUntilListening())"
        _ = try await HTTP.request(
            "POST", base + "/v1/projects", headers: admin, body: HTTP.json(["projectId": "shop-app"]))

        // 8 clients publish (forced) until the server dies; each acknowledged version is recorded with its value.
        let acknowledged = NIOLockedValueBox<[String: String]>([:])
        let killed = NIOLockedValueBox(false)
        await withTaskGroup(of: Void.self) { group in
            for client in 0..<8 {
                group.addTask {
                    for sequence in 0..<40 {
                        if killed.withLockedValue({ $0 }) { return }
                        let value = "c\(client)-s\(sequence)"
                        let body = HTTP.json(["parameters": ["marker": ["defaultValue": ["value": .string(value)]]]])
                        var headers = admin
                        headers["If-Match"] = "*"
                        guard
                            let reply = try? await HTTP.request(
                                "PUT", base + "/v1/projects/shop-app/remoteConfig", headers: headers, body: body),
                            reply.status == 200,
                            let number = reply.value["version"]?["versionNumber"]?.stringValue
                        else { continue }
                        acknowledged.withLockedValue { $0[number] = value }
                    }
                }
            }
            group.addTask {
                while acknowledged.withLockedValue({ $0.count }) < 60 { try? await Task.sleep(for: .milliseconds(5)) }
                killed.withLockedValue { $0 = true }
                server.signal(SIGKILL)
            }
        }
        _ = try await server.waitForExit()

        let restarted = try ServerProcess(["serve", "--port", "0", "--database-url", url], environment: environment)
        let newBase = "http://127.0.0.1:\(try await restarted.waitUntilListening())"
        var history: [Int] = []
        var pageToken: String?
        repeat {
            let page = try await HTTP.request(
                "GET",
                newBase + "/v1/projects/shop-app/remoteConfig:listVersions?pageSize=300"
                    + (pageToken.map { "&pageToken=\($0)" } ?? ""),
                headers: admin)
            let list = try page.decode(TemplateVersionList.self)
            history += list.versions.compactMap { Int($0.versionNumber) }
            pageToken = list.nextPageToken
        } while pageToken != nil
        let acked = acknowledged.withLockedValue { $0 }
        print("crash drill: \(acked.count) publishes acknowledged before SIGKILL, \(history.count) versions in history")
        #expect(acked.count >= 60)
        #expect(
            history == Array((1...(history.max() ?? 0)).reversed()), "version numbers are contiguous, no duplicates")
        for (number, value) in acked {
            let version = try await HTTP.request(
                "GET", newBase + "/v1/projects/shop-app/remoteConfig?versionNumber=\(number)", headers: admin)
            #expect(
                version.value["parameters"]?["marker"]?["defaultValue"]?["value"]?.stringValue == value,
                "acknowledged version \(number) lost or changed")
        }
        restarted.signal(SIGTERM)
        #expect(try await restarted.waitForExit() == 0)
    }
}
