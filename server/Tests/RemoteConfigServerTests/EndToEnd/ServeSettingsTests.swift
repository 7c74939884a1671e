import Foundation
import RemoteConfigServer
import RemoteConfigTestSupport
import Testing

/// Every `serve` setting comes from one list: help shows each with its variable and the default the server
/// really uses, a flag beats its variable, an empty variable is unset, and a bad value names the setting.
@Suite struct ServeSettingsTests {
    /// `serve --help` with its wrapping undone, so a line can be looked for whole.
    static func help() async throws -> String {
        let run = try await CommandLineRun.run(["serve", "--help"])
        #expect(run.status == 0, "\(run)")
        return run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test func helpShowsEverySettingWithItsVariableAndDefault() async throws {
        let help = try await Self.help()
        for setting in ServeSetting.all {
            #expect(help.contains("--\(setting.flag) "), "no --\(setting.flag) in serve --help")
            #expect(help.contains(setting.help), "serve --help does not show: \(setting.help)")
        }
        // Defaults read from the configuration the server starts with, not typed twice.
        let defaults = ServerConfiguration()
        #expect(help.contains("RC_HEADER_TIMEOUT; default \(defaults.headerTimeout.components.seconds))"))
        #expect(help.contains("RC_SESSION_MAX_AGE; default \(defaults.sessionMaxAge.components.seconds))"))
        #expect(help.contains("RC_INSIGHTS_SAMPLE_SIZE; default \(defaults.insightsSampleSize))"))
        #expect(help.contains("RC_HOST; default \(defaults.host))"))
    }

    @Test func aFlagBeatsItsVariableAndAnEmptyVariableIsUnset() throws {
        let both = try ServeSetting.configuration(
            given: ["idle-timeout": "5"], environment: ["RC_IDLE_TIMEOUT": "9", "RC_HEADER_TIMEOUT": "3"])
        #expect(both.configuration.idleTimeout == .seconds(5))
        #expect(both.configuration.headerTimeout == .seconds(3))
        let empty = try ServeSetting.configuration(
            given: [:], environment: ["RC_PORT": "", "RC_INSIGHTS": "", "RC_SESSION_MAX_AGE": ""])
        #expect(empty.configuration.port == ServerConfiguration().port)
        #expect(empty.configuration.insightsEnabled == ServerConfiguration().insightsEnabled)
        #expect(empty.configuration.sessionMaxAge == ServerConfiguration().sessionMaxAge)
    }

    @Test func aBadValueNamesItsFlagAndVariable() throws {
        // Settings that take any text (a host, a folder, a claim name) have no bad value to try.
        let anyText: Set = [
            "host", "data-dir", "postgres-bin-dir", "store-lookup-url", "oidc-client-id", "oidc-groups-claim",
        ]
        for setting in ServeSetting.all where !anyText.contains(setting.flag) {
            for source in ["flag", "variable"] {
                let given = source == "flag" ? [setting.flag: "not-a-value"] : [:]
                let environment = source == "variable" ? [setting.variable: "not-a-value"] : [:]
                do {
                    _ = try ServeSetting.configuration(given: given, environment: environment)
                    Issue.record("--\(setting.flag) accepted 'not-a-value' from its \(source)")
                } catch let error as ServerConfiguration.Invalid {
                    #expect(error.description.hasPrefix(setting.label + ": "), "\(error)")
                    #expect(error.description.contains("'not-a-value'"), "\(error)")
                }
            }
        }
    }
}
