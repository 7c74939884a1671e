import Foundation
import RemoteConfigCore

/// How the command line printed `--json` before its reports went through the API's own coder: the oracle its
/// output must still equal, byte for byte (scripts parse it).
enum FoundationPrinting {
    /// `insights … --json` and `rollouts … --json`: Foundation's pretty printer, keys sorted.
    static func pretty(_ report: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(report), as: UTF8.self) + "\n"
    }

    /// `template impact --json`: the server wrote the report with Foundation's encoder, keys sorted, and the
    /// command line printed that answer with Core's pretty writer.
    static func serverSorted(_ report: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(
            decoding: try JSONValue(parsing: Array(try encoder.encode(report))).prettyJSONBytes(), as: UTF8.self)
    }
}
