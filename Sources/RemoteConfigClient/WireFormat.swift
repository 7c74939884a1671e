import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The body of `POST /v1/projects/{p}/remoteConfig:fetch` (API.md, "Client routes").
struct FetchRequestBody: Codable, Hashable, Sendable {
    var appInstanceId: String
    var appId: String
    var platform: String
    var appVersion: String
    var appBuild: String
    var osVersion: String?
    var countryCode: String?
    var languageCode: String?
    var timeZone: String?
    var sdkVersion: String
    var customSignals: [String: CustomSignalValue]
}

/// A 200 answer of the fetch route.
struct FetchResponseBody: Codable, Sendable {
    var entries: [String: String]?
    var state: String?
    var templateVersion: String?
}

/// The API's error shape: `{"error": {"code", "status", "message", "details"}}`.
struct ErrorResponseBody: Decodable, Sendable {
    struct Detail: Decodable, Sendable {
        var code: Int?
        var status: String?
        var message: String?
    }

    var error: Detail
}

/// The `data` of a stream's `version` event.
struct VersionEventData: Decodable, Sendable {
    var latestTemplateVersionNumber: String
}

/// Building requests and reading answers.
enum Wire {
    /// `{server}/v1/projects/{project}/remoteConfig:{verb}`.
    static func url(server: URL, project: String, verb: String) -> URL {
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/:"))
        let escaped = project.addingPercentEncoding(withAllowedCharacters: allowed) ?? project
        var base = server.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: "\(base)/v1/projects/\(escaped)/remoteConfig:\(verb)")!
    }

    /// Encodes the fetch body with stable key order.
    static func encode(_ body: FetchRequestBody) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(body)
    }

    /// The error an unsuccessful answer stands for.
    static func serverError(statusCode: Int, body: Data) -> RemoteConfigError {
        let detail = try? JSONDecoder().decode(ErrorResponseBody.self, from: body).error
        if statusCode == 401 || statusCode == 403 {
            return .keyRefused(statusCode: statusCode, message: detail?.message)
        }
        return .server(statusCode: statusCode, status: detail?.status, message: detail?.message)
    }

    /// The `Retry-After` header as a delay in seconds (delta-seconds or an HTTP date), or `nil` when absent.
    static func retryAfter(_ response: HTTPURLResponse, now: Date) -> TimeInterval? {
        guard let value = response.value(forHTTPHeaderField: "Retry-After")?.trimmingCharacters(in: .whitespaces),
            !value.isEmpty
        else { return nil }
        if let seconds = Double(value), seconds.isFinite, seconds >= 0 { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
