#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// Whole-file reads without Foundation, which the floor does not otherwise need.
enum FileBytes {
    /// The bytes of the file at `path`, or nil when it cannot be read.
    static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        return ferror(file) == 0 ? bytes : nil
    }
}
