import RemoteConfigServer
import RemoteConfigStore

extension RolloutFixture {
    /// Rollout ids under which every new rollout draws the id `id`, so a test knows its condition's name.
    static func drawing(_ id: Int64) -> RolloutIDs { RolloutIDs { id } }
}
