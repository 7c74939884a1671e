import Foundation
import RemoteConfigCore

/// Asks the App Store lookup API (`URL?id=<appStoreId>&country=<country>`) for an app's listing, in bounded
/// time and size.
///
/// Through `OutboundHTTPClient`: a redirect is not followed (the 3xx itself is a failed sync: a lookup URL is
/// configured, and a redirect's target was once published as `current_version`), and nothing is unpacked. The
/// request asks for `Accept-Encoding: identity`; an answer compressed anyway is refused, and the size cap counts
/// the bytes as they arrive, so a small gzip of a huge body costs at most the cap.
struct AppStoreLookup: Sendable {
    /// Apple's answers are tens of kilobytes; anything far larger is not a lookup answer.
    static let maximumBytes = 2 << 20

    let baseURL: URL
    /// The whole request, connecting included, ends within this.
    let timeout: Duration
    private let client: OutboundHTTPClient

    init(baseURL: URL, timeout: Duration) {
        self.baseURL = baseURL
        self.timeout = timeout
        // The lookup URL is the operator's setting (a mirror or a proxy may be on a private network).
        self.client = OutboundHTTPClient(
            allowPrivate: true, timeout: timeout, answerLimit: Self.maximumBytes, userAgent: "remote-config-store-sync")
    }

    /// The lookup URL of one app in one storefront; other query items of the base URL are kept.
    func url(appStoreId: String, country: String) -> URL? {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else { return nil }
        components.queryItems =
            (components.queryItems ?? []) + [
                URLQueryItem(name: "id", value: appStoreId), URLQueryItem(name: "country", value: country),
            ]
        return components.url
    }

    /// The listing of `appStoreId` in `country`.
    func lookup(appStoreId: String, country: String) async throws(StoreLookupError) -> StoreListing {
        guard let url = url(appStoreId: appStoreId, country: country) else {
            throw .unreachable("cannot build a URL from \(baseURL)")
        }
        let answer: OutboundHTTPClient.Answer
        do {
            answer = try await client.send(
                .GET, url.absoluteString, headers: [("Accept", "application/json"), ("Accept-Encoding", "identity")])
        } catch let failure as OutboundHTTPClient.Failure {
            throw failure.timedOut ? .timedOut(timeout) : .unreachable(failure.description)
        } catch {
            throw .unreachable("\(error)")
        }
        if (300..<400).contains(answer.status) { throw .redirected(answer.status) }
        let encoding = (answer.headers.first(name: "Content-Encoding") ?? "").trimmingCharacters(in: .whitespaces)
        guard encoding.isEmpty || encoding.lowercased() == "identity" else { throw .compressed }
        guard answer.status == 200 else { throw .httpStatus(answer.status) }
        guard !answer.cut else { throw .tooLarge(Self.maximumBytes) }
        return try Self.parse(Data(answer.body), appStoreId: appStoreId, country: country)
    }

    /// Reads Apple's answer, `{"resultCount": 1, "results": [{"version": …, "trackViewUrl": …, …}]}`: the first
    /// result must have a non-empty string `version`; other mappable fields are taken when they are strings.
    static func parse(_ data: Data, appStoreId: String, country: String) throws(StoreLookupError) -> StoreListing {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data)
        } catch {
            throw .malformed("not JSON")
        }
        guard case .object(let root) = value else { throw .malformed("not a JSON object") }
        guard case .array(let results)? = root["results"] else { throw .malformed("no results array") }
        guard let first = results.first else { throw .noSuchApp(appStoreId: appStoreId, country: country) }
        guard case .object(let result) = first else { throw .malformed("results[0] is not an object") }
        var fields: [StoreField: String] = [:]
        for field in StoreField.allCases {
            switch result[field.rawValue] {
            case .string(let text)?:
                // PostgreSQL text cannot hold U+0000; no store field has a reason to.
                guard !text.unicodeScalars.contains("\u{0}") else {
                    throw .malformed("results[0].\(field.rawValue) contains U+0000")
                }
                fields[field] = text
            case nil, .null?:
                continue
            default:
                throw .malformed("results[0].\(field.rawValue) is not a string")
            }
        }
        guard let version = fields[.version]?.trimmingCharacters(in: .whitespacesAndNewlines), !version.isEmpty
        else {
            throw .malformed("results[0] has no version")
        }
        guard version.unicodeScalars.count <= 100 else { throw .malformed("results[0].version is too long") }
        // Every listing's version is recorded and logged, mapped or not: it must be one.
        guard StoreValueCheck.isVersion(version) else {
            throw .malformed("results[0].version is not a version: \(StoreValueCheck.excerpt(version))")
        }
        fields[.version] = version
        return StoreListing(version: version, fields: fields)
    }
}
