import RemoteConfigCore

/// The body of `PUT …/storeSync`: the link's settings. An absent field takes its default (`enabled` true,
/// `country` us, an hour between syncs, no targets, no auto-approval, the store's release delay).
///
/// Decoding checks every field and reports every problem at once (`FieldProblems`). The status members a read
/// answers (`lastSyncTime`, …) may be sent back unchanged and are ignored; any other member is refused.
public struct StoreLinkRequest: Encodable, Sendable, Equatable {
    public var enabled: Bool?
    /// The numeric App Store id; `id123456789`, as the store's URLs write it, or a JSON number is read as
    /// `123456789`.
    public var appStoreId: String
    /// The two-letter storefront, lowercased when read.
    public var country: String?
    public var intervalSeconds: Int?
    public var parameters: StoreLinkTargets?
    public var autoApprove: Bool?
    public var releaseDelaySeconds: Int?

    public static let minimumInterval = 60
    /// Thirty days: a link synced less often than that is better switched off.
    public static let maximumInterval = 30 * 24 * 3600
    /// Targets per link; five fields can fill only so many parameters usefully.
    public static let maximumParameters = 50
    /// Thirty days: a version held back longer than that is better synced by hand.
    public static let maximumReleaseDelay = 30 * 24 * 3600

    public init(
        enabled: Bool? = nil, appStoreId: String, country: String? = nil, intervalSeconds: Int? = nil,
        parameters: StoreLinkTargets? = nil, autoApprove: Bool? = nil, releaseDelaySeconds: Int? = nil
    ) {
        self.enabled = enabled
        self.appStoreId = appStoreId
        self.country = country
        self.intervalSeconds = intervalSeconds
        self.parameters = parameters
        self.autoApprove = autoApprove
        self.releaseDelaySeconds = releaseDelaySeconds
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled, appStoreId, country, intervalSeconds, parameters, autoApprove, releaseDelaySeconds
    }

    /// The members a client may send back unchanged from a read: the status, which it cannot set.
    static let statusFields: Set<String> = [
        "lastSyncTime", "lastStoreVersion", "lastError", "consecutiveFailures", "nextSyncTime", "updateTime",
        "pendingStoreVersion", "pendingUntil",
    ]

    /// Decodes and checks a body; `storeFields` are the store fields a target may name (`version`, …).
    public init(from decoder: any Decoder, storeFields: [String]) throws {
        var problems = FieldProblems(summary: "the store link is not valid")
        let settings = Set(CodingKeys.allCases.map(\.rawValue))
        for key in try decoder.container(keyedBy: AnyKey.self).allKeys
        where !settings.contains(key.stringValue) && !Self.statusFields.contains(key.stringValue) {
            problems.add(key.stringValue, "UNKNOWN_FIELD", "\(key.stringValue) is not a field of a store link")
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        enabled = Self.bool(container, .enabled, &problems)
        autoApprove = Self.bool(container, .autoApprove, &problems)
        appStoreId = Self.appStoreId(container, &problems)
        country = Self.country(container, &problems)
        intervalSeconds = Self.interval(container, &problems)
        releaseDelaySeconds = Self.releaseDelay(container, &problems)
        parameters = Self.targets(container, storeFields: storeFields, &problems)
        try problems.throwIfAny()
    }

    private static func bool(
        _ container: KeyedDecodingContainer<CodingKeys>, _ key: CodingKeys, _ problems: inout FieldProblems
    ) -> Bool? {
        do {
            return try container.decodeIfPresent(Bool.self, forKey: key)
        } catch {
            problems.add(key.rawValue, "NOT_A_BOOLEAN", "\(key.rawValue) must be true or false")
            return nil
        }
    }

    /// A string or a number: ids are numbers, and people paste them either way.
    private static func appStoreId(
        _ container: KeyedDecodingContainer<CodingKeys>, _ problems: inout FieldProblems
    ) -> String {
        let candidate: String
        switch try? container.decodeIfPresent(JSONValue.self, forKey: .appStoreId) {
        case nil:
            problems.add("appStoreId", "REQUIRED", "appStoreId is required: the number in the app's App Store URL")
            return ""
        case .string(let text)?: candidate = text.hasPrefix("id") ? String(text.dropFirst(2)) : text
        case .number(let text)?: candidate = text
        default: candidate = ""
        }
        guard (1...20).contains(candidate.utf8.count), candidate.utf8.allSatisfy({ (48...57).contains($0) }) else {
            problems.add(
                "appStoreId", "INVALID_APP_STORE_ID",
                "appStoreId must be the app's numeric App Store id (the digits after id in its URL)")
            return ""
        }
        return candidate
    }

    private static func country(
        _ container: KeyedDecodingContainer<CodingKeys>, _ problems: inout FieldProblems
    ) -> String? {
        do {
            guard let text = try container.decodeIfPresent(String.self, forKey: .country) else { return nil }
            if text.utf8.count == 2, text.unicodeScalars.allSatisfy(\.isASCIILetter) { return text.lowercased() }
        } catch {}
        problems.add("country", "INVALID_COUNTRY", "country must be a two-letter storefront code such as us or jp")
        return nil
    }

    private static func interval(
        _ container: KeyedDecodingContainer<CodingKeys>, _ problems: inout FieldProblems
    ) -> Int? {
        let whole: Int
        do {
            guard let sent = try container.decodeIfPresent(Int.self, forKey: .intervalSeconds) else { return nil }
            whole = sent
        } catch {
            problems.add("intervalSeconds", "NOT_AN_INTEGER", "intervalSeconds must be a whole number of seconds")
            return nil
        }
        if whole < minimumInterval {
            problems.add(
                "intervalSeconds", "INTERVAL_TOO_SHORT", "intervalSeconds must be at least \(minimumInterval)")
        } else if whole > maximumInterval {
            problems.add(
                "intervalSeconds", "INTERVAL_TOO_LONG",
                "intervalSeconds must be at most \(maximumInterval) (30 days)")
        }
        return whole
    }

    private static func releaseDelay(
        _ container: KeyedDecodingContainer<CodingKeys>, _ problems: inout FieldProblems
    ) -> Int? {
        do {
            guard let whole = try container.decodeIfPresent(Int.self, forKey: .releaseDelaySeconds) else {
                return nil
            }
            if (0...maximumReleaseDelay).contains(whole) { return whole }
        } catch {}
        problems.add(
            "releaseDelaySeconds", "INVALID_RELEASE_DELAY",
            "releaseDelaySeconds must be a whole number of seconds from 0 to \(maximumReleaseDelay)")
        return nil
    }

    /// The targets naming a known store field; each other one is a problem of its own.
    private static func targets(
        _ container: KeyedDecodingContainer<CodingKeys>, storeFields: [String], _ problems: inout FieldProblems
    ) -> StoreLinkTargets? {
        guard (try? container.decodeNil(forKey: .parameters)) == false else { return nil }
        guard let members = try? container.nestedContainer(keyedBy: AnyKey.self, forKey: .parameters) else {
            problems.add("parameters", "NOT_AN_OBJECT", "parameters must map parameter keys to store fields")
            return nil
        }
        if members.allKeys.count > maximumParameters {
            problems.add("parameters", "LIMIT_EXCEEDED", "parameters may name at most \(maximumParameters) targets")
        }
        let names = storeFields.joined(separator: ", ")
        var targets: [StoreLinkTargets.Target] = []
        for key in members.allKeys {
            let field = "parameters.\(key.stringValue)"
            guard let source = try? members.decode(String.self, forKey: key), storeFields.contains(source) else {
                problems.add(field, "UNKNOWN_STORE_FIELD", "\(field) must be one of \(names)")
                continue
            }
            targets.append(.init(parameter: key.stringValue, field: source))
        }
        return StoreLinkTargets(targets)
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
