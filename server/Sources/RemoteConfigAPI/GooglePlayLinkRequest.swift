import RemoteConfigCore

/// The body of `PUT …/storeSync/googlePlay`: the link's settings and, to set or replace it, the service account's
/// key file. An absent field takes its default (`enabled` true, track `production`, an hour between syncs, no
/// targets, the default values rather than a condition's, completed releases only, no auto-approval); an absent
/// `serviceAccountKey` keeps the stored one.
///
/// Decoding checks every field and reports every problem at once (`FieldProblems`). The members a read answers
/// (`serviceAccount`, `lastSyncTime`, …) may be sent back unchanged and are ignored; any other member is refused.
public struct GooglePlayLinkRequest: Codable, Sendable, Equatable {
    public var enabled: Bool?
    public var packageName: String
    public var track: String?
    public var intervalSeconds: Int?
    /// Write-only: never part of an answer.
    public var serviceAccountKey: GooglePlayServiceAccountKeyFile?
    public var parameters: StoreLinkTargets?
    public var condition: String?
    /// `COMPLETED_ONLY` or `ANY_LIVE`.
    public var stagedRollouts: String?
    public var autoApprove: Bool?

    /// The release fields a target may name.
    public static let fields = ["versionName", "versionCode", "inAppUpdatePriority", "userFraction", "releaseNotes"]
    public static let stagedRolloutsValues = ["COMPLETED_ONLY", "ANY_LIVE"]

    public init(
        enabled: Bool? = nil, packageName: String, track: String? = nil, intervalSeconds: Int? = nil,
        serviceAccountKey: GooglePlayServiceAccountKeyFile? = nil, parameters: StoreLinkTargets? = nil,
        condition: String? = nil, stagedRollouts: String? = nil, autoApprove: Bool? = nil
    ) {
        self.enabled = enabled
        self.packageName = packageName
        self.track = track
        self.intervalSeconds = intervalSeconds
        self.serviceAccountKey = serviceAccountKey
        self.parameters = parameters
        self.condition = condition
        self.stagedRollouts = stagedRollouts
        self.autoApprove = autoApprove
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case enabled, packageName, track, intervalSeconds, serviceAccountKey, parameters, condition, stagedRollouts
        case autoApprove
    }

    /// The members a client may send back unchanged from a read: the status, which it cannot set.
    static let statusFields: Set<String> = [
        "serviceAccount", "lastSyncTime", "liveRelease", "lastError", "consecutiveFailures", "nextSyncTime",
        "updateTime",
    ]

    /// Decodes and checks a body, every problem at once.
    public init(from decoder: any Decoder) throws {
        var problems = FieldProblems(summary: "the Google Play link is not valid")
        let settings = Set(CodingKeys.allCases.map(\.rawValue))
        for key in try decoder.container(keyedBy: AnyKey.self).allKeys
        where !settings.contains(key.stringValue) && !Self.statusFields.contains(key.stringValue) {
            problems.add(key.stringValue, "UNKNOWN_FIELD", "\(key.stringValue) is not a field of a Google Play link")
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        enabled = Self.bool(container, .enabled, &problems)
        autoApprove = Self.bool(container, .autoApprove, &problems)
        packageName = Self.packageName(container, &problems)
        track = Self.track(container, &problems)
        intervalSeconds = Self.interval(container, &problems)
        condition = Self.condition(container, &problems)
        stagedRollouts = Self.stagedRollouts(container, &problems)
        if let value = try? container.decodeIfPresent(JSONValue.self, forKey: .serviceAccountKey), value != .null {
            serviceAccountKey = GooglePlayServiceAccountKeyFile.read(
                value, field: "serviceAccountKey", &problems)
        } else {
            serviceAccountKey = nil
        }
        parameters = Self.targets(container, &problems)
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

    /// Whether `text` is an Android application id: two or more dot-separated parts, each a letter then letters,
    /// digits or underscores.
    public static func isPackageName(_ text: String) -> Bool {
        guard (1...255).contains(text.utf8.count) else { return false }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { return false }
        return parts.allSatisfy { part in
            guard let first = part.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else {
                return false
            }
            return part.unicodeScalars.allSatisfy {
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
            }
        }
    }

    private static func packageName(
        _ container: KeyedDecodingContainer<CodingKeys>, _ problems: inout FieldProblems
    ) -> String {
        guard let text = try? container.decodeIfPresent(String.self, forKey: .packageName) else {
            problems.add(
                "packageName", "REQUIRED", "packageName is required: the app's package name, such as com.example.app")
            return ""
        }
        guard isPackageName(text) else {
            problems.add(
                "packageName", "INVALID_PACKAGE_NAME",
                "packageName must be an Android package name such as com.example.app")
            return ""
        }
        return text
    }

    private static func track(_ container: KeyedDecodingContainer<CodingKeys>, _ problems: inout FieldProblems)
        -> String?
    {
        do {
            guard let text = try container.decodeIfPresent(String.self, forKey: .track) else { return nil }
            let allowed = text.unicodeScalars.allSatisfy {
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ":_-".unicodeScalars.contains($0))
            }
            if (1...100).contains(text.utf8.count), allowed { return text }
        } catch {}
        problems.add(
            "track", "INVALID_TRACK",
            "track must be a track's name such as production, beta, alpha, internal or a custom track")
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
        if whole < StoreLinkRequest.minimumInterval {
            problems.add(
                "intervalSeconds", "INTERVAL_TOO_SHORT",
                "intervalSeconds must be at least \(StoreLinkRequest.minimumInterval)")
        } else if whole > StoreLinkRequest.maximumInterval {
            problems.add(
                "intervalSeconds", "INTERVAL_TOO_LONG",
                "intervalSeconds must be at most \(StoreLinkRequest.maximumInterval) (30 days)")
        }
        return whole
    }

    private static func condition(
        _ container: KeyedDecodingContainer<CodingKeys>, _ problems: inout FieldProblems
    ) -> String? {
        do {
            guard let text = try container.decodeIfPresent(String.self, forKey: .condition) else { return nil }
            if (1...100).contains(text.unicodeScalars.count) { return text }
        } catch {}
        problems.add("condition", "INVALID_CONDITION", "condition must be the name of a condition of the template")
        return nil
    }

    private static func stagedRollouts(
        _ container: KeyedDecodingContainer<CodingKeys>, _ problems: inout FieldProblems
    ) -> String? {
        do {
            guard let text = try container.decodeIfPresent(String.self, forKey: .stagedRollouts) else { return nil }
            if stagedRolloutsValues.contains(text) { return text }
        } catch {}
        problems.add(
            "stagedRollouts", "INVALID_STAGED_ROLLOUTS",
            "stagedRollouts must be COMPLETED_ONLY (completed releases only) or ANY_LIVE (a staged release counts)")
        return nil
    }

    /// The targets naming a release field; each other one is a problem of its own.
    private static func targets(_ container: KeyedDecodingContainer<CodingKeys>, _ problems: inout FieldProblems)
        -> StoreLinkTargets?
    {
        guard (try? container.decodeNil(forKey: .parameters)) == false else { return nil }
        guard let members = try? container.nestedContainer(keyedBy: AnyKey.self, forKey: .parameters) else {
            problems.add("parameters", "NOT_AN_OBJECT", "parameters must map parameter keys to release fields")
            return nil
        }
        if members.allKeys.count > StoreLinkRequest.maximumParameters {
            problems.add(
                "parameters", "LIMIT_EXCEEDED",
                "parameters may name at most \(StoreLinkRequest.maximumParameters) targets")
        }
        let names = fields.joined(separator: ", ")
        var targets: [StoreLinkTargets.Target] = []
        for key in members.allKeys {
            let field = "parameters.\(key.stringValue)"
            guard let source = try? members.decode(String.self, forKey: key), fields.contains(source) else {
                problems.add(field, "UNKNOWN_RELEASE_FIELD", "\(field) must be one of \(names)")
                continue
            }
            targets.append(.init(parameter: key.stringValue, field: source))
        }
        return StoreLinkTargets(targets)
    }
}
