import Foundation
import RemoteConfigCore

/// Why a lookup gave no usable listing. Each is one sentence for the link's `lastError` and the log.
enum StoreLookupError: Error, CustomStringConvertible, Equatable {
    case unreachable(String)
    case timedOut(Duration)
    case httpStatus(Int)
    case tooLarge(Int)
    case malformed(String)
    case noSuchApp(appStoreId: String, country: String)
    /// A 3xx: the lookup follows no redirect.
    case redirected(Int)
    /// A compressed answer to a request that asked for none.
    case compressed

    var description: String {
        switch self {
        case .unreachable(let reason): "the App Store lookup could not be reached: \(reason)"
        case .timedOut(let limit): "the App Store lookup did not answer within \(limit)"
        case .httpStatus(let status): "the App Store lookup answered HTTP \(status)"
        case .tooLarge(let limit): "the App Store lookup answered more than \(limit) bytes"
        case .malformed(let reason): "the App Store lookup answered something unusable: \(reason)"
        case .noSuchApp(let id, let country):
            "the App Store lookup found no app \(id) in the \(country) storefront (empty results)"
        case .redirected(let status):
            "the App Store lookup answered a redirect (HTTP \(status)); redirects are not followed, so set "
                + "--store-lookup-url to the address that answers"
        case .compressed:
            "the App Store lookup answered a compressed body although it was asked for none (Accept-Encoding: identity)"
        }
    }
}
