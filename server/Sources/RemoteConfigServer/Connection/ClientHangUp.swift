import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// A client that closes its connection before its request is read (say, mid-upload). Nobody receives the
/// answer; it is recorded as 499, as nginx does, so a hang-up never counts as a server error.
enum ClientHangUp {
    /// 499 "Client Closed Request" (`CANCELLED` in Google's API statuses).
    static let status = HTTPResponse.Status(code: 499, reasonPhrase: "Client Closed Request")

    /// The error recorded for a hang-up.
    static var error: APIError { APIError(status, "the client closed the connection before its request was read") }

    /// Whether `error` means the client went away while its request was read.
    static func matches(_ error: any Error) -> Bool {
        switch error {
        // A request's task is cancelled when its connection closes (or the server stops): nobody awaits the answer.
        case is CancellationError: true
        case let error as HTTPParserError: error == .invalidEOFState
        case let error as ChannelError: error == .eof || error == .ioOnClosedChannel || error == .inputClosed
        case let error as IOError: [ECONNRESET, EPIPE].contains(error.errnoCode)
        default: false
        }
    }
}
