import RemoteConfigCore
import RemoteConfigStore

/// `PUT …/storeSync`: the link's settings, checked field by field; every problem is reported at once.
struct StoreLinkBody: RequestBody {
    let settings: StoreLinkSettings

    static let defaultCountry = "us"
    static let defaultInterval = 3600
    static let minimumInterval = 60
    /// Thirty days: a link synced less often than that is better switched off.
    static let maximumInterval = 30 * 24 * 3600
    /// Targets per link; five fields can fill only so many parameters usefully.
    static let maximumParameters = 50
    /// The members a client may send back unchanged from a read: the status, which it cannot set.
    static let statusFields: Set<String> = [
        "lastSyncTime", "lastStoreVersion", "lastError", "consecutiveFailures", "nextSyncTime", "updateTime",
        "pendingStoreVersion", "pendingUntil",
    ]
    static let settingFields: Set<String> = [
        "enabled", "appStoreId", "country", "intervalSeconds", "parameters", "autoApprove", "releaseDelaySeconds",
    ]
    /// Thirty days: a version held back longer than that is better synced by hand.
    static let maximumReleaseDelay = 30 * 24 * 3600

    init(_ body: JSONBody) throws {
        var issues = Issues()
        let object = body.object
        for member in object.members where !Self.settingFields.contains(member.key) {
            if !Self.statusFields.contains(member.key) {
                issues.add(member.key, "UNKNOWN_FIELD", "\(member.key) is not a field of a store link")
            }
        }
        let enabled = issues.bool(object, "enabled") ?? true
        let autoApprove = issues.bool(object, "autoApprove") ?? false

        var appStoreId = ""
        let candidate: String?
        switch object["appStoreId"] {
        case nil, .null?:
            candidate = nil
            issues.add("appStoreId", "REQUIRED", "appStoreId is required: the number in the app's App Store URL")
        // `id123456789`, as the store's URLs write it, is the id 123456789.
        case .string(let text)?: candidate = text.hasPrefix("id") ? String(text.dropFirst(2)) : text
        case .number(let text)?: candidate = text
        default: candidate = ""
        }
        if let candidate {
            if (1...20).contains(candidate.utf8.count), candidate.utf8.allSatisfy({ (48...57).contains($0) }) {
                appStoreId = candidate
            } else {
                issues.add(
                    "appStoreId", "INVALID_APP_STORE_ID",
                    "appStoreId must be the app's numeric App Store id (the digits after id in its URL)")
            }
        }

        var country = Self.defaultCountry
        switch object["country"] {
        case nil, .null?: break
        case .string(let text)? where text.utf8.count == 2 && text.unicodeScalars.allSatisfy(\.isASCIILetter):
            country = text.lowercased()
        default:
            issues.add("country", "INVALID_COUNTRY", "country must be a two-letter storefront code such as us or jp")
        }

        var interval = Self.defaultInterval
        switch object["intervalSeconds"] {
        case nil, .null?: break
        case .number(let text)?:
            if let whole = Int(text) ?? Double(text).flatMap({ Int(exactly: $0) }) {
                interval = whole
                if whole < Self.minimumInterval {
                    issues.add(
                        "intervalSeconds", "INTERVAL_TOO_SHORT",
                        "intervalSeconds must be at least \(Self.minimumInterval)")
                } else if whole > Self.maximumInterval {
                    issues.add(
                        "intervalSeconds", "INTERVAL_TOO_LONG",
                        "intervalSeconds must be at most \(Self.maximumInterval) (30 days)")
                }
            } else {
                issues.add("intervalSeconds", "NOT_AN_INTEGER", "intervalSeconds must be a whole number of seconds")
            }
        default:
            issues.add("intervalSeconds", "NOT_AN_INTEGER", "intervalSeconds must be a whole number of seconds")
        }

        var releaseDelay = StoreLinkSettings.defaultReleaseDelay
        switch object["releaseDelaySeconds"] {
        case nil, .null?: break
        case .number(let text)?:
            if let whole = Int(text) ?? Double(text).flatMap({ Int(exactly: $0) }),
                (0...Self.maximumReleaseDelay).contains(whole)
            {
                releaseDelay = whole
            } else {
                issues.add(
                    "releaseDelaySeconds", "INVALID_RELEASE_DELAY",
                    "releaseDelaySeconds must be a whole number of seconds from 0 to \(Self.maximumReleaseDelay)")
            }
        default:
            issues.add(
                "releaseDelaySeconds", "INVALID_RELEASE_DELAY",
                "releaseDelaySeconds must be a whole number of seconds from 0 to \(Self.maximumReleaseDelay)")
        }

        var mappings: [StoreLinkMapping] = []
        switch object["parameters"] {
        case nil, .null?: break
        case .object(let members)?:
            if members.count > Self.maximumParameters {
                issues.add(
                    "parameters", "LIMIT_EXCEEDED", "parameters may name at most \(Self.maximumParameters) targets")
            }
            let names = StoreField.allCases.map(\.rawValue).joined(separator: ", ")
            for member in members.members {
                let field = "parameters.\(member.key)"
                guard case .string(let source) = member.value, StoreField(rawValue: source) != nil else {
                    issues.add(field, "UNKNOWN_STORE_FIELD", "\(field) must be one of \(names)")
                    continue
                }
                mappings.append(StoreLinkMapping(parameter: member.key, field: source))
            }
        default:
            issues.add("parameters", "NOT_AN_OBJECT", "parameters must map parameter keys to store fields")
        }
        try issues.throwIfAny()
        settings = StoreLinkSettings(
            enabled: enabled, appStoreId: appStoreId, country: country, intervalSeconds: interval,
            parameters: mappings, autoApprove: autoApprove, releaseDelaySeconds: releaseDelay)
    }

    /// 400 naming every target that is not a STRING parameter of `template` (the published one).
    func checkTargets(in template: RemoteConfigTemplate) throws {
        var known: [String: ValueType] = [:]
        for item in template.allParameters { known[item.key] = item.parameter.valueType }
        var issues = Issues()
        for mapping in settings.parameters {
            let field = "parameters.\(mapping.parameter)"
            switch known[mapping.parameter] {
            case nil:
                issues.add(
                    field, "PARAMETER_NOT_FOUND",
                    "\(mapping.parameter) is not a parameter of the published template; publish it first")
            case .string?:
                break
            case let type?:
                issues.add(
                    field, "NOT_A_STRING_PARAMETER",
                    "\(mapping.parameter) is a \(type.rawValue) parameter; store values go into STRING parameters")
            }
        }
        try issues.throwIfAny()
    }

    /// Problems found so far; one 400 lists them all.
    struct Issues {
        private var details: [ErrorDetail] = []

        mutating func add(_ field: String, _ reason: String, _ message: String) {
            details.append(ErrorDetail(field: field, reason: reason, message: message))
        }

        /// A boolean member; nil when absent or null.
        mutating func bool(_ object: JSONObject, _ field: String) -> Bool? {
            switch object[field] {
            case nil, .null?: return nil
            case .bool(let value)?: return value
            default:
                add(field, "NOT_A_BOOLEAN", "\(field) must be true or false")
                return nil
            }
        }

        func throwIfAny() throws {
            guard let first = details.first else { return }
            let more = details.count > 1 ? " (and \(details.count - 1) more problems)" : ""
            throw APIError.invalidArgument(
                "the store link is not valid: \(first.message ?? first.reason)\(more)", details)
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
