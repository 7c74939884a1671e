import Foundation

/// Why a call to Google gave nothing usable. Each is one sentence for the link's `lastError` and the log, in
/// words a person acts on; none quotes the key.
enum GooglePlayError: Error, CustomStringConvertible, Equatable {
    /// `what` is `the token endpoint` or `the Google Play Developer API`.
    case unreachable(what: String, reason: String)
    case timedOut(what: String, limit: Duration)
    case redirected(what: String, status: Int)
    case tooLarge(what: String, limit: Int)
    case malformed(what: String, reason: String)
    /// The token endpoint refused the key (400/401): deleted, disabled or not this account's.
    case keyRefused(status: Int, google: String)
    /// The API refused the account (401/403): it was not invited to the app, or lacks the permission.
    case noAccess(status: Int, account: String, packageName: String)
    /// 404: no such app for this account, or no such track.
    case notFound(packageName: String, track: String)
    /// 429 or 5xx: Google asks to come back later; the backoff does.
    case backOff(what: String, status: Int)
    case httpStatus(what: String, status: Int, google: String)
    /// A signature could not be made with the stored key.
    case signing(String)

    var description: String {
        switch self {
        case .unreachable(let what, let reason): "\(what) could not be reached: \(reason)"
        case .timedOut(let what, let limit): "\(what) did not answer within \(limit)"
        case .redirected(let what, let status):
            "\(what) answered a redirect (HTTP \(status)); redirects are not followed, so set --play-token-url or "
                + "--play-api-url to the address that answers"
        case .tooLarge(let what, let limit): "\(what) answered more than \(limit) bytes"
        case .malformed(let what, let reason): "\(what) answered something unusable: \(reason)"
        case .keyRefused(let status, let google):
            "Google refused the service account's key (HTTP \(status)\(google.isEmpty ? "" : ": \(google)")): the key "
                + "may have been deleted or disabled in Google Cloud; create a new JSON key and PUT it"
        case .noAccess(let status, let account, let packageName):
            "the service account \(account) has no access to the app \(packageName) (Google Play answered HTTP "
                + "\(status)): invite it in Play Console under Users and permissions with View app information, "
                + "and check that the Google Play Android Developer API is enabled in its Google Cloud project"
        case .notFound(let packageName, let track):
            "Google Play has no app \(packageName) with a track \(track) that this service account can see (HTTP 404)"
        case .backOff(let what, let status):
            "\(what) answered HTTP \(status) (\(status == 429 ? "too many requests" : "a server error")); the sync "
                + "backs off and tries again later"
        case .httpStatus(let what, let status, let google):
            "\(what) answered HTTP \(status)\(google.isEmpty ? "" : ": \(google)")"
        case .signing(let reason): "the service account's key cannot sign the token request: \(reason)"
        }
    }
}
