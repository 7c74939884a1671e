import Hummingbird
import JWTKit
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `PUT …/storeSync/googlePlay`: the link's settings as sent (`GooglePlayLinkRequest`, every problem reported at
/// once) with the defaults of the fields left out, and the key when one was sent, its private key checked to be
/// an RSA key the server can sign with.
struct GooglePlayLinkBody {
    let settings: GooglePlayLinkSettings
    let key: GooglePlayServiceAccountKey?

    static let defaultTrack = "production"
    static let defaultInterval = 3600

    /// Reads and checks the request's body; 400 listing every field at fault (never quoting the key).
    static func read(_ request: Request, context: AppRequestContext) async throws -> GooglePlayLinkBody {
        let sent = try await JSONBody.decode(request, context: context) { try GooglePlayLinkRequest(from: $0) }
        var key: GooglePlayServiceAccountKey?
        if let file = sent.serviceAccountKey {
            // What Google signs with: an RSA key of at least 2048 bits (jwt-kit refuses smaller ones).
            guard (try? Insecure.RSA.PrivateKey(pem: file.privateKey)) != nil else {
                throw APIError.invalidField(
                    "serviceAccountKey.private_key", reason: "NOT_AN_RSA_KEY",
                    "serviceAccountKey.private_key is not an RSA private key of 2048 bits or more in PEM form, "
                        + "as a Google Cloud service account's key file has it")
            }
            key = GooglePlayServiceAccountKey(
                account: GooglePlayServiceAccount(clientEmail: file.clientEmail, privateKeyId: file.privateKeyId),
                privateKeyPEM: file.privateKey)
        }
        let settings = GooglePlayLinkSettings(
            enabled: sent.enabled ?? true, packageName: sent.packageName, track: sent.track ?? Self.defaultTrack,
            intervalSeconds: sent.intervalSeconds ?? Self.defaultInterval,
            parameters: (sent.parameters?.targets ?? []).map {
                StoreLinkMapping(parameter: $0.parameter, field: $0.field)
            },
            condition: sent.condition,
            stagedRollouts: sent.stagedRollouts.flatMap(GooglePlayStagedRollouts.init(rawValue:)) ?? .completedOnly,
            autoApprove: sent.autoApprove ?? false)
        return GooglePlayLinkBody(settings: settings, key: key)
    }

    /// 400 naming every target that is not a parameter of `template` (the published one) of a fitting type, and
    /// the condition when the template has none of that name.
    func check(in template: RemoteConfigTemplate) throws {
        var known: [String: ValueType] = [:]
        for item in template.allParameters { known[item.key] = item.parameter.valueType }
        var problems = FieldProblems(summary: "the Google Play link is not valid")
        for mapping in settings.parameters {
            let field = "parameters.\(mapping.parameter)"
            guard let source = GooglePlayField(rawValue: mapping.field) else { continue }
            switch known[mapping.parameter] {
            case nil:
                problems.add(
                    field, "PARAMETER_NOT_FOUND",
                    "\(mapping.parameter) is not a parameter of the published template; publish it first")
            case let type? where !source.parameterTypes.contains(type):
                let fitting = source.parameterTypes.map(\.rawValue).joined(separator: " or ")
                problems.add(
                    field, "WRONG_PARAMETER_TYPE",
                    "\(mapping.parameter) is a \(type.rawValue) parameter; \(source.rawValue) goes into a \(fitting) "
                        + "parameter")
            default:
                break
            }
        }
        if let condition = settings.condition, !template.conditions.contains(where: { $0.name == condition }) {
            problems.add(
                "condition", "CONDITION_NOT_FOUND",
                "\(condition) is not a condition of the published template; publish it first "
                    + "(typically device.os == 'android')")
        }
        try problems.throwIfAny()
    }
}
