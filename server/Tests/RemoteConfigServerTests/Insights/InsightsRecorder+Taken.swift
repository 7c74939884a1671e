import RemoteConfigStore

@testable import RemoteConfigServer

extension InsightsRecorder {
    /// Every thread's counts so far, added up (each thread starts afresh), as a flush takes them: for tests that
    /// look at what a flush would write without writing it.
    func takenBatch() -> InsightsBatch {
        var taken = take()
        var batch = InsightsBatch()
        for project in taken.projects { batch.merge(self.batch(of: project, from: &taken)) }
        return batch
    }
}
