import NIOCore

/// The command line: `nio-floor --port N --answer FILE [--codec] [--log FILE] [--event-loops N]`.
struct FloorOptions {
    /// The loopback port to listen on (0: any free port; the chosen one is printed).
    var port = 0
    /// The whole answer, head and body, exactly as sent (e.g. nginx's answer, captured).
    var answer: ByteBuffer
    /// Whether requests go through NIO's HTTP codec (`HTTPRequestDecoder`, `HTTPServerPipelineHandler`,
    /// `HTTPResponseEncoder`) rather than the handler that finds each request's end in the bytes itself.
    var codec = false
    /// Where an access line per request goes, in batches of 64 KB; nil: no access log.
    var logPath: String?
    /// How many event loops (threads) serve connections.
    var eventLoops = 2

    /// Reads the options from `arguments` (without the program's name); a usage error names the bad argument.
    init(arguments: [String]) throws {
        var answerPath: String?
        var rest = arguments[...]
        func value(_ name: String) throws -> String {
            guard let value = rest.popFirst() else { throw UsageError(message: "\(name) needs a value") }
            return value
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--port": port = Int(try value(argument)) ?? -1
            case "--answer": answerPath = try value(argument)
            case "--codec": codec = true
            case "--log": logPath = try value(argument)
            case "--event-loops": eventLoops = Int(try value(argument)) ?? 0
            default: throw UsageError(message: "unknown argument \(argument)")
            }
        }
        guard let answerPath, let bytes = FileBytes.read(answerPath) else {
            throw UsageError(message: "--answer FILE (a readable file holding the whole answer) is required")
        }
        guard (0...65535).contains(port), eventLoops >= 1 else {
            throw UsageError(message: "--port takes 0...65535, --event-loops at least 1")
        }
        answer = ByteBuffer(bytes: bytes)
    }
}

/// A bad command line, with what was wrong.
struct UsageError: Error {
    /// What was wrong, for the standard error.
    var message: String
}
