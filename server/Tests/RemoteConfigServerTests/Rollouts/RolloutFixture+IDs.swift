import RemoteConfigServer
import RemoteConfigStore

extension RolloutFixture {
    /// An application set-up under which every new rollout draws the id `id`, so a test knows its condition's
    /// name.
    static func drawing(_ id: Int64) -> @Sendable (inout AppEnvironment) -> Void {
        { $0.rolloutIDs = RolloutIDs { id } }
    }
}
