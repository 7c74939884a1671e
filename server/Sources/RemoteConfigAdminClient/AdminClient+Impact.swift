import RemoteConfigAPI
import RemoteConfigCore

/// `POST …/remoteConfig:impact`: what a candidate would change for the app instances seen recently.
extension AdminClient {
    /// The impact of publishing `template`, decoded, with the server's JSON as it came (for `--json`).
    public func impact(project: String, template: JSONObject, since: String? = nil) async throws -> (
        report: ImpactReport, json: JSONObject
    ) {
        let body = ImpactRequest(candidate: .template(.object(template)), since: since)
        let response = try await call("POST", Self.templatePath(project, ":impact"), body: try APIEncoder.bytes(body))
        return (try response.decode(ImpactReport.self), try response.object())
    }
}
