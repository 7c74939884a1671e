import Foundation
import NIOConcurrencyHelpers
import RemoteConfigCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The fields of an App Store lookup's `results[0]` that a store link may copy into parameters.
enum StoreField: String, CaseIterable, Sendable {
    case version
    case trackViewUrl
    case minimumOsVersion
    case releaseNotes
    case currentVersionReleaseDate
}

/// The listing an App Store lookup answered: the mappable fields it had, as strings.
struct StoreListing: Sendable, Equatable {
    /// `version`, which every listing has.
    let version: String
    let fields: [StoreField: String]
}

/// Why a lookup gave no usable listing. Each is one sentence for the link's `lastError` and the log.
enum StoreLookupError: Error, CustomStringConvertible, Equatable {
    case unreachable(String)
    case timedOut(Duration)
    case httpStatus(Int)
    case tooLarge(Int)
    case malformed(String)
    case noSuchApp(appStoreId: String, country: String)
    /// A 3xx: the lookup follows no redirect.
    case redirected(Int)
    /// A compressed answer to a request that asked for none.
    case compressed

    var description: String {
        switch self {
        case .unreachable(let reason): "the App Store lookup could not be reached: \(reason)"
        case .timedOut(let limit): "the App Store lookup did not answer within \(limit)"
        case .httpStatus(let status): "the App Store lookup answered HTTP \(status)"
        case .tooLarge(let limit): "the App Store lookup answered more than \(limit) bytes"
        case .malformed(let reason): "the App Store lookup answered something unusable: \(reason)"
        case .noSuchApp(let id, let country):
            "the App Store lookup found no app \(id) in the \(country) storefront (empty results)"
        case .redirected(let status):
            "the App Store lookup answered a redirect (HTTP \(status)); redirects are not followed, so set "
                + "--store-lookup-url to the address that answers"
        case .compressed:
            "the App Store lookup answered a compressed body although it was asked for none (Accept-Encoding: identity)"
        }
    }
}

/// Asks the App Store lookup API (`URL?id=<appStoreId>&country=<country>`) for an app's listing, in bounded
/// time and size.
struct AppStoreLookup: Sendable {
    /// Apple's lookup, the default of `--store-lookup-url`.
    static let appleURL = "https://itunes.apple.com/lookup"
    /// Apple's answers are tens of kilobytes; anything far larger is not a lookup answer.
    static let maximumBytes = 2 << 20

    let baseURL: URL
    /// The whole request, connecting included, ends within this.
    let timeout: Duration
    /// Made on the first lookup: a server without store links never starts FoundationNetworking (libcurl).
    private let sessionBox: LazySession

    init(baseURL: URL, timeout: Duration) {
        self.baseURL = baseURL
        self.timeout = timeout
        self.sessionBox = LazySession(timeout: timeout)
    }

    private var session: URLSession { sessionBox.session }

    /// One URLSession per lookup, created when first needed, with the delegate that enforces the lookup's limits.
    private final class LazySession: Sendable {
        private let timeout: Duration
        private let box = NIOLockedValueBox<URLSession?>(nil)
        let transfer = StoreLookupTransfer(maximumBytes: AppStoreLookup.maximumBytes)

        init(timeout: Duration) { self.timeout = timeout }

        var session: URLSession {
            box.withLockedValue { session in
                if let session { return session }
                let made = Self.make(timeout: timeout, delegate: transfer)
                session = made
                return made
            }
        }

        static func make(timeout: Duration, delegate: StoreLookupTransfer) -> URLSession {
            let configuration = URLSessionConfiguration.ephemeral
            // The session's own timers are a backstop behind `fetch`'s deadline (which decides): a second later,
            // and whole seconds, since on Linux a sub-second timer fires at once.
            let seconds = (Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18).rounded(
                .up)
            configuration.timeoutIntervalForRequest = seconds + 1
            configuration.timeoutIntervalForResource = seconds + 1
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            configuration.urlCache = nil
            configuration.httpCookieStorage = nil
            return URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        }
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
        var request = URLRequest(url: url)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        // A compressed answer could unpack to far more than the cap before it is counted; Apple's is small.
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        request.setValue("remote-config-store-sync", forHTTPHeaderField: "User-Agent")
        let (data, http) = try await fetch(request)
        guard http.statusCode == 200 else { throw .httpStatus(http.statusCode) }
        guard data.count <= Self.maximumBytes else { throw .tooLarge(Self.maximumBytes) }
        return try Self.parse(data, appStoreId: appStoreId, country: country)
    }

    /// The request, given up at `timeout` whatever the session's own timers do (they measure idleness).
    private func fetch(_ request: URLRequest) async throws(StoreLookupError) -> (Data, HTTPURLResponse) {
        let session = self.session
        let transfer = sessionBox.transfer
        let limit = timeout
        let outcome: Result<(Data, HTTPURLResponse), StoreLookupError> = await withTaskGroup(
            of: Result<(Data, HTTPURLResponse), StoreLookupError>?.self
        ) { group in
            group.addTask {
                do {
                    return .success(try await transfer.run(session.dataTask(with: request)))
                } catch let error as StoreLookupError {
                    return .failure(error)
                } catch let error as URLError where error.code == .timedOut {
                    return .failure(.timedOut(limit))
                } catch {
                    return .failure(.unreachable(Self.describe(error)))
                }
            }
            group.addTask {
                // nil when cancelled: the other task decides.
                guard (try? await Task.sleep(for: limit)) != nil else { return nil }
                return .failure(.timedOut(limit))
            }
            var first: Result<(Data, HTTPURLResponse), StoreLookupError>?
            while first == nil, let next = await group.next() { first = next }
            group.cancelAll()
            return first ?? .failure(.unreachable("cancelled"))
        }
        return try outcome.get()
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? URLError { return "\(error.localizedDescription) (URLError \(error.code.rawValue))" }
        return "\(error)"
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
