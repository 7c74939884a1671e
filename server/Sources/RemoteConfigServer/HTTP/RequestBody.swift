import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore

/// An admin request's body as a typed value, checked field by field when it is read.
protocol RequestBody {
    /// Takes the fields it needs from `body`; 400 naming the field at fault.
    init(_ body: JSONBody) throws
}
