import ArgumentParser
import Foundation
import RemoteConfigAdminClient
import RemoteConfigCore

/// The sentence for a file pulled at another version than the published one.
enum StaleFile {
    /// `override` names the way past the check (`publish with --force`, …).
    static func explanation(
        file path: String, fileVersion: Int64?, published: Int64?, project: String,
        override: String = "publish with --force"
    ) -> String {
        switch (fileVersion, published) {
        case (nil, let published?):
            return "\(path) has no version, but \(project) already has version \(published): pull it with "
                + "`remote-config template get -p \(project) -o \(path)` and merge your change, or \(override)"
        case (let pulled?, let published?):
            return "\(project) is at version \(published), but \(path) was pulled at version \(pulled): someone "
                + "published since. See what changed with `remote-config template diff -p \(project) --from \(pulled) "
                + "--to \(published)`, merge it into \(path), or \(override)"
        case (let pulled?, nil):
            return "\(path) was pulled at version \(pulled), but \(project) has nothing published: \(override) "
                + "to start its history from this file"
        case (nil, nil):
            return "\(path) and \(project) agree: nothing is published yet"
        }
    }
}
