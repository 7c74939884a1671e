import RemoteConfigAPI
import RemoteConfigCore

/// `POST …/remoteConfig:impact`: what a candidate would change for the app instances seen recently.
extension AdminClient {
    /// The impact of publishing `template`, decoded, with the server's JSON as it came (for `--json`).
    public func impact(project: String, template: JSONObject, since: String? = nil) async throws -> (
        report: ImpactReport, json: JSONObject
    ) {
        var body: JSONObject = ["template": .object(template)]
        if let since { body["since"] = .string(since) }
        let response = try await call(
            "POST", Self.templatePath(project, ":impact"), body: JSONValue.object(body).jsonBytes())
        return (try response.decode(ImpactReport.self), try response.object())
    }
}
