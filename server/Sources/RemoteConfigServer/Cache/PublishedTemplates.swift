import Logging
import NIOConcurrencyHelpers
import RemoteConfigCore
import RemoteConfigStore

/// Every project's published template, compiled, in memory: what the fetch hot path reads.
///
/// Replaced whole on each publish (this server at once, the others through NOTIFY, all through a
/// periodic check); readers take a snapshot under a lock and evaluate without holding it.
public final class PublishedTemplates: Sendable {
    /// One project's serving state. A class: every client call looks its project's entry up, and handing it
    /// on costs one reference count rather than one per member.
    public final class Entry: Sendable {
        public let version: Int64
        /// nil before the first publish.
        public let compiled: CompiledTemplate?
        /// The fetch answers of `compiled`, remembered per caller signature.
        let answers: FetchAnswers?
        /// The OpenFeature (OFREP) evaluations of `compiled`, remembered the same way.
        let ofrep: OFREPAnswers

        init(version: Int64, compiled: CompiledTemplate?) {
            self.version = version
            self.compiled = compiled
            self.answers = compiled.map(FetchAnswers.init)
            self.ofrep = compiled.map(OFREPAnswers.init) ?? .nothingPublished
        }
    }

    private let entries = NIOLockedValueBox<[String: Entry]>([:])
    private let loaded = NIOLockedValueBox(false)
    private let templates: TemplateStore
    private let heavyWork: HeavyWork
    private let logger: Logger
    /// Called after a project's template changed in this cache (the realtime stream listens).
    private let observers = NIOLockedValueBox<[@Sendable (String, Int64) -> Void]>([])

    init(templates: TemplateStore, heavyWork: HeavyWork, logger: Logger) {
        self.templates = templates
        self.heavyWork = heavyWork
        self.logger = logger
    }

    /// Whether the first full load finished (readiness).
    public var isLoaded: Bool { loaded.withLockedValue { $0 } }

    /// The entry of `project`, if the project is known.
    public func entry(_ project: String) -> Entry? {
        entries.withLockedValue { $0[project] }
    }

    /// Registers a callback for template changes.
    public func observe(_ observer: @escaping @Sendable (String, Int64) -> Void) {
        observers.withLockedValue { $0.append(observer) }
    }

    /// Installs a version this server just published or read. A large template (up to 1 MiB takes a while)
    /// compiles on the heavy-work threads; a usual one at once, so a publish never waits for its streams'
    /// announcement behind heavy fetches queued there.
    public func install(_ stored: StoredVersion) async {
        let compiled: CompiledTemplate
        do {
            let compile: @Sendable () throws -> CompiledTemplate = {
                var template = try RemoteConfigTemplate(json: Array(stored.templateJSON.utf8))
                template.version = TemplateVersion(versionNumber: String(stored.versionNumber))
                return try CompiledTemplate(template)
            }
            compiled = try await heavyWork.run(size: stored.templateJSON.utf8.count, compile)
        } catch {
            // Published templates were validated; a failure here means a bug, not bad input.
            logger.error("cannot compile version \(stored.versionNumber) of \(stored.project): \(error)")
            return
        }
        install(project: stored.project, version: stored.versionNumber, compiled: compiled)
    }

    /// Installs a version compiled by the publish that made it (numbered here), unless a newer one is in.
    public func install(project: String, version: Int64, compiled: CompiledTemplate) {
        let numbered = compiled.versioned(version)
        let installed = entries.withLockedValue { entries -> Bool in
            if let current = entries[project], current.version >= version { return false }
            entries[project] = Entry(version: version, compiled: numbered)
            return true
        }
        if installed {
            for observer in observers.withLockedValue({ $0 }) { observer(project, version) }
        }
    }

    /// Brings every project up to the database's latest version; returns how many were reloaded.
    @discardableResult
    public func synchronize() async throws -> Int {
        let latest = try await templates.latestVersions()
        var reloaded = 0
        for (project, version) in latest {
            let current = entry(project)?.version ?? -1
            guard version > current else { continue }
            if version == 0 {
                entries.withLockedValue { $0[project] = $0[project] ?? Entry(version: 0, compiled: nil) }
                continue
            }
            try await reload(project)
            reloaded += 1
        }
        loaded.withLockedValue { $0 = true }
        return reloaded
    }

    /// Loads the latest version of one project (after a NOTIFY).
    public func reload(_ project: String) async throws {
        if let stored = try await templates.latest(project) {
            await install(stored)
        } else {
            entries.withLockedValue { $0[project] = $0[project] ?? Entry(version: 0, compiled: nil) }
        }
    }
}
