import Foundation
import RemoteConfigClient
import Testing

// Deliberately not `@testable`: a Firebase user's code sees only the public API.

/// Firebase's Remote Config quickstart for iOS (its `ViewController`), with two changes: the instance is created our
/// way instead of `RemoteConfig.remoteConfig()`, and the label is a stream so the test can read it. Closures follow
/// Swift 6's rules (the handlers are `@Sendable`), as they must with Firebase in Swift 6 mode too.
private final class QuickstartViewController: Sendable {
    let remoteConfig: RemoteConfig
    let welcomeMessageConfigKey = "welcome_message"
    let welcomeMessageCapsConfigKey = "welcome_message_caps"
    let loadingPhraseConfigKey = "loading_phrase"
    let (welcomeLabel, welcomeLabelSink) = AsyncStream<String>.makeStream()

    init(remoteConfig: RemoteConfig) {
        self.remoteConfig = remoteConfig
        // [START set_up_remote_config_settings]
        let settings = RemoteConfigSettings()
        settings.minimumFetchInterval = 0
        remoteConfig.configSettings = settings
        // [START set_default_values]
        remoteConfig.setDefaults(fromPlist: "RemoteConfigDefaults")
    }

    func fetchConfig() {
        welcomeLabelSink.yield(remoteConfig[loadingPhraseConfigKey].stringValue)
        // [START fetch_config_with_callback]
        remoteConfig.fetch { (status, error) -> Void in
            if status == .success {
                print("Config fetched!")
                self.remoteConfig.activate { changed, error in
                    self.displayWelcome()
                }
            } else {
                print("Config not fetched")
                print("Error: \(error?.localizedDescription ?? "No error available.")")
                self.displayWelcome()
            }
        }
    }

    func listenForUpdates() -> ConfigUpdateListenerRegistration {
        // [START add_config_update_listener]
        remoteConfig.addOnConfigUpdateListener { configUpdate, error in
            guard let configUpdate, error == nil else {
                print("Error listening for config updates: \(String(describing: error))")
                return
            }
            print("Updated keys: \(configUpdate.updatedKeys)")
            self.remoteConfig.activate { changed, error in
                guard error == nil else { return }
                self.displayWelcome()
            }
        }
    }

    func displayWelcome() {
        // [START get_config_value]
        var welcomeMessage = remoteConfig[welcomeMessageConfigKey].stringValue
        if remoteConfig[welcomeMessageCapsConfigKey].boolValue {
            welcomeMessage = welcomeMessage.uppercased()
        }
        welcomeLabelSink.yield(welcomeMessage)
    }
}

private struct Banner: Decodable, Equatable {
    var title: String
}

@Suite struct FirebaseSampleTests {
    static func next(_ label: AsyncStream<String>) async throws -> String? {
        try await withTimeout {
            var iterator = label.makeAsyncIterator()
            return await iterator.next()
        }
    }

    @Test func theQuickstartRuns() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let controller = QuickstartViewController(remoteConfig: harness.makeConfig())
        let remoteConfig = controller.remoteConfig
        #expect(remoteConfig.configSettings.minimumFetchInterval == 0)
        remoteConfig.setDefaults(["loading_phrase": "Fetching config…" as NSObject, "welcome_message": "Welcome"])

        harness.transport.enqueue(.ok(["welcome_message": "Hello from the server", "welcome_message_caps": "true"]))
        controller.fetchConfig()
        #expect(try await Self.next(controller.welcomeLabel) == "Fetching config…")
        #expect(try await Self.next(controller.welcomeLabel) == "HELLO FROM THE SERVER")

        let registration = controller.listenForUpdates()
        let connection = try await harness.transport.nextConnection()
        harness.transport.enqueue(.ok(["welcome_message": "Updated", "welcome_message_caps": "false"], version: "2"))
        connection.send("event: version\nid: 2\ndata: {\"latestTemplateVersionNumber\": \"2\"}\n\n")
        #expect(try await Self.next(controller.welcomeLabel) == "Updated")
        registration.remove()

        harness.transport.enqueueOffline()
        controller.fetchConfig()
        _ = try await Self.next(controller.welcomeLabel)
        #expect(try await Self.next(controller.welcomeLabel) == "Updated", "a failed fetch keeps the active values")
        #expect(remoteConfig.lastFetchStatus == .failure)
    }

    /// The snippets of Firebase's "Get started" and reference pages, one after another.
    @Test func theGuideSnippetsCompileAndBehave() async throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let remoteConfig = harness.makeConfig()
        remoteConfig.setDefaults(["max_items": 10 as NSObject, "dark_mode": false as NSObject])
        #expect(remoteConfig.configValue(forKey: "max_items").numberValue.intValue == 10)
        #expect(remoteConfig.configValue(forKey: "max_items").source == .default)
        #expect(remoteConfig.lastFetchStatus == .noFetchYet)
        #expect(remoteConfig.lastFetchTime == nil)

        let entries = ["max_items": "25", "dark_mode": "true", "banner": #"{"title":"Sale"}"#]
        harness.transport.enqueue(.ok(entries))
        let status = try await remoteConfig.fetchAndActivate()
        #expect(status == .successFetchedFromRemote)

        let banner = remoteConfig.configValue(forKey: "banner")
        #expect(banner.source == .remote)
        #expect((banner.jsonValue as? [String: Any])?["title"] as? String == "Sale")
        #expect(try banner.decoded(asType: Banner.self) == Banner(title: "Sale"))
        #expect(banner.dataValue == Data(#"{"title":"Sale"}"#.utf8))
        #expect(remoteConfig.configValue(forKey: "dark_mode").boolValue)
        #expect(remoteConfig.configValue(forKey: "max_items").numberValue.intValue == 25)
        #expect(remoteConfig.configValue(forKey: "missing").source == .static)
        #expect(remoteConfig.allKeys(from: .remote) == ["banner", "dark_mode", "max_items"])
        #expect(remoteConfig.allKeys(from: .default) == ["dark_mode", "max_items"])
        #expect(remoteConfig.lastFetchStatus == .success)
        #expect(remoteConfig.lastFetchTime == harness.clock.now)

        harness.transport.enqueue(.ok(["max_items": "30"], version: "2", etag: "\"e2\""))
        try await remoteConfig.fetch(withExpirationDuration: 0)
        let changed = try await remoteConfig.activate()
        #expect(changed)
        #expect(remoteConfig["max_items"].numberValue.intValue == 30)

        let (events, sink) = AsyncStream<String>.makeStream()
        harness.transport.enqueue(.notModified(etag: "\"e2\""))
        remoteConfig.fetch(withExpirationDuration: 0) { status, error in
            sink.yield("fetch \(status == .success) \(error == nil)")
            remoteConfig.activate { changed, error in
                sink.yield("activate \(changed) \(error == nil)")
                remoteConfig.fetchAndActivate { status, error in
                    sink.yield("fetchAndActivate \(status == .successUsingPreFetchedData) \(error == nil)")
                    sink.finish()
                }
            }
        }
        let log = try await withTimeout { await events.reduce(into: [String]()) { $0.append($1) } }
        #expect(log == ["fetch true true", "activate false true", "fetchAndActivate true true"])
        #expect(harness.transport.fetchCount == 3, "the last call was within the 12-hour interval")
    }

    @Test func defaultsFromABundledPlist() throws {
        let harness = Harness()
        defer { harness.cleanUp() }
        let bundleDirectory = harness.directory.appendingPathComponent("App.bundle", isDirectory: true)
        try FileManager.default.createDirectory(at: bundleDirectory, withIntermediateDirectories: true)
        let plist = try PropertyListSerialization.data(
            fromPropertyList: ["welcome_message": "Hi", "max_items": 3], format: .xml, options: 0)
        try plist.write(to: bundleDirectory.appendingPathComponent("RemoteConfigDefaults.plist"))
        let bundle = try #require(Bundle(url: bundleDirectory))

        let remoteConfig = harness.makeConfig()
        #expect(remoteConfig.setDefaults(fromPlist: "RemoteConfigDefaults", bundle: bundle))
        #expect(remoteConfig["welcome_message"].stringValue == "Hi")
        #expect(remoteConfig.defaultValue(forKey: "max_items")?.numberValue.intValue == 3)
    }
}
