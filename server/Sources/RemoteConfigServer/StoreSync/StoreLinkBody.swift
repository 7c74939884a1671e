import Hummingbird
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `PUT …/storeSync`: the link's settings as sent (`StoreLinkRequest`, every problem reported at once), with the
/// defaults of the fields left out.
struct StoreLinkBody {
    let settings: StoreLinkSettings

    static let defaultCountry = "us"
    static let defaultInterval = 3600

    init(_ sent: StoreLinkRequest) {
        settings = StoreLinkSettings(
            enabled: sent.enabled ?? true, appStoreId: sent.appStoreId, country: sent.country ?? Self.defaultCountry,
            intervalSeconds: sent.intervalSeconds ?? Self.defaultInterval,
            parameters: (sent.parameters?.targets ?? []).map {
                StoreLinkMapping(parameter: $0.parameter, field: $0.field)
            },
            autoApprove: sent.autoApprove ?? false,
            releaseDelaySeconds: sent.releaseDelaySeconds ?? StoreLinkSettings.defaultReleaseDelay)
    }

    /// Reads and checks the request's body; 400 listing every field at fault.
    static func read(_ request: Request, context: AppRequestContext) async throws -> StoreLinkBody {
        let fields = StoreField.allCases.map(\.rawValue)
        return StoreLinkBody(
            try await JSONBody.decode(request, context: context) {
                try StoreLinkRequest(from: $0, storeFields: fields)
            })
    }

    /// 400 naming every target that is not a STRING parameter of `template` (the published one).
    func checkTargets(in template: RemoteConfigTemplate) throws {
        var known: [String: ValueType] = [:]
        for item in template.allParameters { known[item.key] = item.parameter.valueType }
        var problems = FieldProblems(summary: "the store link is not valid")
        for mapping in settings.parameters {
            let field = "parameters.\(mapping.parameter)"
            switch known[mapping.parameter] {
            case nil:
                problems.add(
                    field, "PARAMETER_NOT_FOUND",
                    "\(mapping.parameter) is not a parameter of the published template; publish it first")
            case .string?:
                break
            case let type?:
                problems.add(
                    field, "NOT_A_STRING_PARAMETER",
                    "\(mapping.parameter) is a \(type.rawValue) parameter; store values go into STRING parameters")
            }
        }
        try problems.throwIfAny()
    }
}
