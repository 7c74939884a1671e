import Foundation
import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore

/// The body of `remoteConfig:impact` (`ImpactRequest`) with the defaults of the fields left out.
struct ImpactBody {
    let candidate: ImpactRequest.Candidate
    /// The start of the window of recently seen instances.
    let since: Date?
    let forceUpdateParameter: String

    init(_ sent: ImpactRequest) {
        candidate = sent.candidate
        // The request's decoding checked it is an RFC 3339 time.
        since = sent.since.flatMap(RFC3339.parse)
        forceUpdateParameter = sent.forceUpdateParameter ?? "require_force_update"
    }

    /// Reads and checks the request's body; 400 naming the field at fault.
    static func read(_ request: Request, context: AppRequestContext) async throws -> ImpactBody {
        ImpactBody(try await JSONBody.decode(ImpactRequest.self, request, context: context))
    }
}
