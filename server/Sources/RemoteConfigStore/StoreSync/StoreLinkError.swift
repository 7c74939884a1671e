import Foundation

/// Why a sync's write was refused.
public enum StoreLinkError: Error, Equatable {
    /// The claim's lease ran out and another sync holds the link now.
    case claimLost
}
