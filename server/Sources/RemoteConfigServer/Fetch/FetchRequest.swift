import Foundation
import NIOConcurrencyHelpers
import RemoteConfigCore

/// The body of `remoteConfig:fetch`, checked field by field and turned into a `FetchContext`.
enum FetchRequest {
    /// Parses `bytes`; 400 naming the field for anything malformed. A preview may leave out the instance id
    /// (`requireInstanceId: false`): percent and instance conditions are then unknown.
    static func context(from bytes: some Collection<UInt8>, now: Date, requireInstanceId: Bool = true) throws
        -> FetchContext
    {
        let object: JSONObject
        do {
            guard case .object(let parsed) = try JSONValue(parsing: bytes) else {
                throw APIError.invalidField("body", reason: "NOT_AN_OBJECT", "the request body must be a JSON object")
            }
            object = parsed
        } catch let error as JSONParseError {
            throw APIError.invalidField(
                "body", reason: "MALFORMED_JSON", "the request body is not valid JSON: \(error)")
        }
        var context = FetchContext(now: now)
        let instance = try string(object, "appInstanceId", maxLength: 256)
        if instance?.isEmpty ?? true, requireInstanceId {
            throw APIError.invalidField("appInstanceId", reason: "REQUIRED", "appInstanceId is required")
        }
        context.appInstanceId = instance?.isEmpty == false ? instance : nil
        try readAttributes(object, into: &context)
        if let zone = try string(object, "timeZone", maxLength: 64), !TimeZones.isKnown(zone) {
            throw APIError.invalidField("timeZone", reason: "INVALID_TIME_ZONE", "timeZone must be an IANA zone name")
        }
        _ = try string(object, "sdkVersion", maxLength: 128)
        context.customSignals = try signals(object, "customSignals")
        context.userProperties = try signals(object, "userProperties")
        return context
    }

    /// The attributes that a fetch body and an OpenFeature context name alike and mean alike.
    static let attributes: Set<String> = [
        "appId", "platform", "appVersion", "appBuild", "osVersion", "countryCode", "languageCode", "firstOpenTime",
    ]

    /// Reads `attributes` from `object` into `context`, each checked as a fetch checks it (400 naming the
    /// field).
    static func readAttributes(_ object: JSONObject, into context: inout FetchContext) throws {
        context.appId = try string(object, "appId", maxLength: 256)
        if let platform = try string(object, "platform", maxLength: 16) {
            guard let value = Platform(caseInsensitive: platform) else {
                throw APIError.invalidField(
                    "platform", reason: "INVALID_PLATFORM", "platform must be IOS, ANDROID or WEB")
            }
            context.platform = value
        }
        context.appVersion = try version(object, "appVersion")
        context.appBuild = try version(object, "appBuild")
        context.osVersion = try version(object, "osVersion")
        if let country = try string(object, "countryCode", maxLength: 8) {
            // ISO 3166 alpha-2 (JP), or a UN M49 area (419, 001) as some devices report.
            let bytes = country.utf8
            let alpha = bytes.count == 2 && bytes.allSatisfy(ASCII.isLetter)
            let numeric = bytes.count == 3 && bytes.allSatisfy(ASCII.isDigit)
            guard alpha || numeric else {
                throw APIError.invalidField(
                    "countryCode", reason: "INVALID_COUNTRY", "countryCode must be a country code such as JP")
            }
            context.countryCode = country
        }
        if let language = try string(object, "languageCode", maxLength: 35) {
            guard ASCII.isLanguageTag(language.utf8) else {
                throw APIError.invalidField(
                    "languageCode", reason: "INVALID_LANGUAGE", "languageCode must be a language tag such as ja-JP")
            }
            context.languageCode = language
        }
        if let first = try string(object, "firstOpenTime", maxLength: 64) {
            guard let date = RFC3339.parse(first) else {
                throw APIError.invalidField(
                    "firstOpenTime", reason: "INVALID_TIME", "firstOpenTime must be an RFC 3339 time")
            }
            context.firstOpenTime = date
        }
    }

    /// At most this many custom signals (or user properties) per caller.
    static let signalLimit = 100

    /// One custom signal as a fetch checks it: a name of at most 250 characters, a string of at most 500
    /// characters or a finite number; `path` names it in the 400.
    static func signal(named name: String, _ value: JSONValue, path: String) throws -> SignalValue {
        guard name.count <= 250 else {
            throw APIError.invalidField(path, reason: "TOO_LONG", "signal names have at most 250 characters")
        }
        switch value {
        case .string(let text):
            guard text.utf8.count <= 500 || text.count <= 500 else {
                throw APIError.invalidField(path, reason: "TOO_LONG", "signal values have at most 500 characters")
            }
            return .string(text)
        case .number:
            guard let number = value.doubleValue, number.isFinite else {
                throw APIError.invalidField(path, reason: "NOT_A_NUMBER", "\(path) is not a finite number")
            }
            return .number(number)
        default:
            throw APIError.invalidField(path, reason: "INVALID_SIGNAL", "\(path) must be a string or a number")
        }
    }

    private static func string(_ object: JSONObject, _ field: String, maxLength: Int) throws -> String? {
        switch object[field] {
        case nil, .null?:
            return nil
        case .string(let text)?:
            guard text.utf8.count <= maxLength || text.count <= maxLength else {
                throw APIError.invalidField(
                    field, reason: "TOO_LONG", "\(field) is longer than \(maxLength) characters")
            }
            return text
        default:
            throw APIError.invalidField(field, reason: "NOT_A_STRING", "\(field) must be a string")
        }
    }

    /// A version or build: 1 to 64 characters of letters, digits, `.`, `-`, `+`, `_`.
    private static func version(_ object: JSONObject, _ field: String) throws -> String? {
        guard let text = try string(object, field, maxLength: 64) else { return nil }
        let allowed = text.utf8.allSatisfy {
            ASCII.isLetter($0) || ASCII.isDigit($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
                || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "_")
        }
        guard !text.isEmpty, allowed else {
            throw APIError.invalidField(
                field, reason: "INVALID_VERSION", "\(field) must look like 2.1.0 (digits, letters, dots)")
        }
        return text
    }

    private static func signals(_ object: JSONObject, _ field: String) throws -> [String: SignalValue] {
        switch object[field] {
        case nil, .null?:
            return [:]
        case .object(let members)?:
            guard members.count <= signalLimit else {
                throw APIError.invalidField(field, reason: "LIMIT_EXCEEDED", "at most \(signalLimit) \(field)")
            }
            var result: [String: SignalValue] = [:]
            for member in members {
                result[member.key] = try signal(named: member.key, member.value, path: "\(field).\(member.key)")
            }
            return result
        default:
            throw APIError.invalidField(field, reason: "NOT_AN_OBJECT", "\(field) must be an object")
        }
    }
}

/// Byte tests for the fetch body's fields: this runs on every fetch, and `Character`'s Unicode properties
/// showed up in its profile.
private enum ASCII {
    static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Subtags of 1 to 8 letters or digits, separated by `-` or `_` (`ja-JP`, `zh_Hant_TW`).
    static func isLanguageTag(_ bytes: String.UTF8View) -> Bool {
        var length = 0
        for byte in bytes {
            if byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") {
                guard length > 0 else { return false }
                length = 0
            } else {
                guard isLetter(byte) || isDigit(byte), length < 8 else { return false }
                length += 1
            }
        }
        return length > 0
    }
}

/// IANA zone names already found valid: `TimeZone(identifier:)` reads the zone database, too slow to
/// ask on every fetch. Only valid names are remembered, so the set stays as small as the database.
private enum TimeZones {
    private static let known = NIOLockedValueBox<Set<String>>([])

    static func isKnown(_ name: String) -> Bool {
        if known.withLockedValue({ $0.contains(name) }) { return true }
        guard TimeZone(identifier: name) != nil else { return false }
        known.withLockedValue { if $0.count < 5_000 { $0.insert(name) } }
        return true
    }
}
