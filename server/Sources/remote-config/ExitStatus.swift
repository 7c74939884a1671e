import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// The exit statuses of the admin commands, as API.md lists them, so a CI step can tell failures apart.
enum ExitStatus: Int32 {
    case ok = 0
    /// Wrong usage: an unknown flag, a missing argument, a file that cannot be read.
    case usage = 1
    /// An invalid template or request (400).
    case invalid = 2
    /// A conflict (409, 412, or a file pulled at an older version than the published one).
    case conflict = 3
    /// The key was refused (401, 403).
    case refused = 4
    /// The server could not be reached, or answered 503 (or another 5xx).
    case unavailable = 5
    /// Not found (404).
    case notFound = 6
    /// A gate refused: `template impact --max-forced` found more newly required to update than allowed.
    case gateExceeded = 7

    /// The status for an error answer's HTTP code.
    init(httpStatus code: Int) {
        switch code {
        case 400, 413, 422: self = .invalid
        case 409, 412, 428: self = .conflict
        case 401, 403: self = .refused
        case 404: self = .notFound
        case 500...599, 429: self = .unavailable
        default: self = .usage
        }
    }
}
