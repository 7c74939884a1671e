import Foundation

/// The PostgreSQL server programs of this machine (`initdb`, `pg_ctl`, `postgres`), found once.
public struct PostgresBinaries: Sendable {
    /// The folder that holds all three programs.
    public let directory: String

    public var initdb: String { directory + "/initdb" }
    public var pgCtl: String { directory + "/pg_ctl" }

    /// Why no binaries were found, with how to install them.
    public struct NotFound: Error, CustomStringConvertible {
        public let searched: [String]
        public var description: String {
            #if os(macOS)
                let hint = "install them with `brew install postgresql@16`"
            #else
                let hint = "install them with `apt-get install -y postgresql` (Debian/Ubuntu)"
            #endif
            return
                "PostgreSQL server binaries (initdb, pg_ctl, postgres) not found in \(searched.joined(separator: ", ")); "
                + "\(hint), or pass --database-url to use an existing PostgreSQL"
        }
    }

    /// Finds the programs: only in `override` when given, else on `PATH`, under `/usr/lib/postgresql/*/bin`
    /// (newest first) and in Homebrew's prefixes.
    public static func locate(override: String? = nil) throws -> PostgresBinaries {
        let candidates: [String]
        if let override, !override.isEmpty {
            candidates = [override]
        } else {
            candidates = searchPath()
        }
        for directory in candidates where isComplete(directory) {
            return PostgresBinaries(directory: directory)
        }
        throw NotFound(searched: override.map { [$0] } ?? ["PATH", "/usr/lib/postgresql/*/bin", "Homebrew"])
    }

    private static func isComplete(_ directory: String) -> Bool {
        ["initdb", "pg_ctl", "postgres"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: directory + "/" + $0)
        }
    }

    private static func searchPath() -> [String] {
        var result = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        result += versionedDirectories(under: "/usr/lib/postgresql") { "/usr/lib/postgresql/\($0)/bin" }
        for prefix in ["/opt/homebrew/opt", "/usr/local/opt"] {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: prefix)) ?? []
            let versions = names.filter { $0.hasPrefix("postgresql") }.sorted { numericSuffix($0) > numericSuffix($1) }
            result += versions.map { "\(prefix)/\($0)/bin" }
        }
        result += ["/opt/homebrew/bin", "/usr/local/bin"]
        return result
    }

    private static func versionedDirectories(under root: String, _ path: (String) -> String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.sorted { numericSuffix($0) > numericSuffix($1) }.map(path)
    }

    private static func numericSuffix(_ name: String) -> Double {
        Double(name.filter { $0.isNumber || $0 == "." }) ?? 0
    }
}
