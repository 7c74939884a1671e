import Foundation
import RemoteConfigAdminClient
import RemoteConfigCore

/// Reading and writing template files, with failures that name the file and where in it.
enum TemplateFileIO {
    /// The file's JSON object; exit 1 when it cannot be read, 2 when it is not a JSON object.
    static func read(_ path: String) throws -> JSONObject {
        let bytes = try contents(path)
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            let (line, column) = TemplateFile.position(of: error.offset, in: bytes)
            throw CommandFailure(
                .invalid, "\(path) is not valid JSON: \(error.message) (line \(line), column \(column))")
        }
        guard let object = value.objectValue else {
            throw CommandFailure(.invalid, "\(path) is not a template: it is a JSON \(value.typeName), not an object")
        }
        return object
    }

    /// The file's bytes; exit 1 when it does not exist or cannot be read.
    static func contents(_ path: String) throws -> [UInt8] {
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw CommandFailure(.usage, "\(path) \(reason)")
        }
    }

    /// Writes pretty JSON (two-space indent, members in order) to `path`, or to stdout for nil or `-`.
    static func write(_ object: JSONObject, to path: String?) throws {
        let bytes = JSONValue.object(object).prettyJSONBytes()
        try write(bytes, to: path)
    }

    /// Writes bytes to `path`, or to stdout for nil or `-`; creates the folders the path names (`-o App/x.plist`
    /// in a fresh clone), as `mkdir -p` would.
    static func write(_ bytes: [UInt8], to path: String?) throws {
        guard let path, path != "-" else {
            FileHandle.standardOutput.write(Data(bytes))
            return
        }
        let url = URL(fileURLWithPath: path)
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url, options: .atomic)
        } catch {
            throw CommandFailure(.usage, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// The file's template for comparing, once the server has accepted it.
    static func template(_ object: JSONObject, path: String) throws -> RemoteConfigTemplate {
        do {
            return try TemplateFile.template(object)
        } catch {
            throw CommandFailure(.invalid, "\(path) is not a valid template: \(error)")
        }
    }
}

extension RemoteConfigTemplate {
    /// A template from an answer's JSON object.
    init(answer: JSONObject) throws {
        do {
            try self.init(json: JSONValue.object(answer).jsonBytes())
        } catch {
            throw AdminClientError.badResponse("the template does not decode: \(error)")
        }
    }
}
