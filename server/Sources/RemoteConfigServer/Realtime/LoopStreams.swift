import NIOCore

/// The streams one event loop serves, by project. Touched only on that loop (every method runs there), which
/// is what makes sharing it between the hub's lock and the loop safe.
final class LoopStreams: @unchecked Sendable {
    let eventLoop: any EventLoop
    private var byProject: [String: [ObjectIdentifier: StreamFront]] = [:]

    init(eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func add(_ stream: StreamFront, project: String) {
        byProject[project, default: [:]][ObjectIdentifier(stream)] = stream
    }

    func remove(_ stream: StreamFront, project: String) {
        byProject[project]?[ObjectIdentifier(stream)] = nil
        if byProject[project]?.isEmpty == true { byProject[project] = nil }
    }

    /// Streams written to in one event-loop task: a few milliseconds of writes on this machine.
    static let slice = 256

    func publish(project: String, version: Int64, bytes: StreamEventBytes) {
        guard let streams = byProject[project] else { return }
        write(Array(streams.values), from: 0, version: version, bytes: bytes)
    }

    func keepAlive(bytes: StreamEventBytes) {
        write(byProject.values.flatMap(\.values), from: 0, version: nil, bytes: bytes)
    }

    /// Writes to `streams[start...]` a slice at a time, each slice a task of its own, so that what else this
    /// loop serves (fetches, the publish's own acknowledgement) waits for one slice, not for every stream.
    private func write(_ streams: [StreamFront], from start: Int, version: Int64?, bytes: StreamEventBytes) {
        let end = min(start + Self.slice, streams.count)
        for stream in streams[start..<end] { stream.send(version: version, bytes: bytes) }
        guard end < streams.count else { return }
        // Scheduled a moment later rather than executed: NIO runs the tasks that tasks add in the same tick,
        // before it looks at sockets again, so only a deadline in the future lets reads in between slices.
        eventLoop.assumeIsolated().scheduleTask(in: .microseconds(100)) {
            self.write(streams, from: end, version: version, bytes: bytes)
        }
    }

    /// Ends the streams of `keyId`, or all of them.
    func end(keyId: String?) {
        for streams in byProject.values {
            for stream in streams.values where keyId == nil || stream.keyId == keyId { stream.end() }
        }
    }
}
