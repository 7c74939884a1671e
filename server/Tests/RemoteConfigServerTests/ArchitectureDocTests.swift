import Foundation
import Testing

/// `docs/architecture.md` is the map of the code: every file or folder it names in backticks exists, so a
/// rename or a removal that leaves the map behind fails here rather than misleading the next reader.
@Suite struct ArchitectureDocTests {
    /// The repository's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// Every file's path under the root, relative to it (build folders and git's own left out).
    static func files() -> [String] {
        let base = root.standardizedFileURL.path + "/"
        guard
            let walk = FileManager.default.enumerator(
                at: root, includingPropertiesForKeys: [.isDirectoryKey], options: [])
        else { return [] }
        var paths: [String] = []
        for case let url as URL in walk {
            let name = url.lastPathComponent
            if name == ".git" || name.hasPrefix(".build") || name == "node_modules" {
                walk.skipDescendants()
                continue
            }
            paths.append(String(url.standardizedFileURL.path.dropFirst(base.count)))
        }
        return paths
    }

    /// The backticked names in `text` that are paths: a file with an extension, or a folder ending in `/`.
    static func namedPaths(_ text: String) -> Set<String> {
        let extensions = ["swift", "py", "sh", "sql", "md", "js", "css", "html", "json", "yaml", "yml"]
        var names = Set<String>()
        for (index, part) in text.components(separatedBy: "`").enumerated() where index % 2 == 1 {
            guard !part.contains(" "), !part.isEmpty else { continue }
            let isFile = extensions.contains { part.hasSuffix("." + $0) }
            let isFolder = part.hasSuffix("/") && part.count > 1 && !part.hasPrefix("/")
            if isFile || isFolder { names.insert(part) }
        }
        return names
    }

    @Test func everyPathTheArchitectureNamesExists() throws {
        let text = try String(
            contentsOf: Self.root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        let files = Self.files()
        let named = Self.namedPaths(text)
        #expect(named.count > 50, "the document names the code's files")
        for name in named.sorted() {
            let found = files.contains { path in
                let candidate = name.hasSuffix("/") ? path + "/" : path
                return candidate == name || candidate.hasSuffix("/" + name)
            }
            #expect(found, "docs/architecture.md names \(name), which is not in the repository")
        }
    }
}
