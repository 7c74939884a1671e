import Foundation
import RemoteConfigCore
import RemoteConfigStore

/// A track as `GET …/edits/{id}/tracks/{track}` answers it (`Track` of androidpublisher v3): its releases, as far
/// as a sync reads them.
struct GooglePlayTrack: Sendable, Equatable {
    /// One `TrackRelease`.
    struct Release: Sendable, Equatable {
        var name: String?
        var versionCodes: [Int64]
        /// `completed`, `inProgress`, `halted`, `draft`, `statusUnspecified`.
        var status: String
        var userFraction: Double?
        var inAppUpdatePriority: Int?
        /// `LocalizedText`s: language and text, in Google's order.
        var releaseNotes: [(language: String, text: String)]

        static func == (lhs: Release, rhs: Release) -> Bool {
            lhs.name == rhs.name && lhs.versionCodes == rhs.versionCodes && lhs.status == rhs.status
                && lhs.userFraction == rhs.userFraction && lhs.inAppUpdatePriority == rhs.inAppUpdatePriority
                && lhs.releaseNotes.map(\.language) == rhs.releaseNotes.map(\.language)
                && lhs.releaseNotes.map(\.text) == rhs.releaseNotes.map(\.text)
        }
    }

    var track: String
    var releases: [Release]

    /// The release users of the track get: the `completed` one; with `ANY_LIVE`, an `inProgress` one (a staged
    /// rollout) takes its place. Halted, draft and unspecified releases never count. Nil when none is live.
    func live(_ staged: GooglePlayStagedRollouts) -> Release? {
        if staged == .anyLive, let rolling = releases.first(where: { $0.status == "inProgress" }) { return rolling }
        return releases.first { $0.status == "completed" }
    }

    /// Reads Google's answer; `GooglePlayError.malformed` naming what is wrong. Version codes are int64, which
    /// Google writes as strings (a number is read too).
    static func parse(_ data: Data) throws(GooglePlayError) -> GooglePlayTrack {
        func bad(_ reason: String) -> GooglePlayError {
            .malformed(what: "the Google Play Developer API", reason: reason)
        }
        guard let value = try? JSONValue(parsing: data), case .object(let root) = value else {
            throw bad("the track is not a JSON object")
        }
        let name: String
        switch root["track"] {
        case .string(let text)?: name = text
        default: throw bad("the track has no name")
        }
        var releases: [Release] = []
        switch root["releases"] {
        case nil, .null?: break
        case .array(let items)?:
            for (index, item) in items.enumerated() {
                releases.append(try release(item, at: "releases[\(index)]"))
            }
        default: throw bad("releases is not an array")
        }
        return GooglePlayTrack(track: name, releases: releases)
    }

    private static func release(_ value: JSONValue, at path: String) throws(GooglePlayError) -> Release {
        func bad(_ reason: String) -> GooglePlayError {
            .malformed(what: "the Google Play Developer API", reason: "\(path) \(reason)")
        }
        guard case .object(let members) = value else { throw bad("is not an object") }
        guard case .string(let status)? = members["status"] else { throw bad("has no status") }
        var release = Release(
            name: nil, versionCodes: [], status: status, userFraction: nil, inAppUpdatePriority: nil,
            releaseNotes: [])
        switch members["name"] {
        case .string(let text)?:
            guard !text.unicodeScalars.contains("\u{0}") else { throw bad("has a name containing U+0000") }
            release.name = text
        case nil, .null?: break
        default: throw bad("has a name that is not a string")
        }
        switch members["versionCodes"] {
        case nil, .null?: break
        case .array(let codes)?:
            for code in codes {
                let text: String
                switch code {
                case .string(let value): text = value
                case .number(let value): text = value
                default: throw bad("has a version code that is neither a string nor a number")
                }
                guard let number = Int64(text), number > 0 else { throw bad("has a version code that is not one") }
                release.versionCodes.append(number)
            }
        default: throw bad("has versionCodes that are not an array")
        }
        switch members["userFraction"] {
        case nil, .null?: break
        case .number(let text)?:
            guard let fraction = Double(text), fraction >= 0, fraction <= 1 else {
                throw bad("has a userFraction outside 0…1")
            }
            release.userFraction = fraction
        default: throw bad("has a userFraction that is not a number")
        }
        switch members["inAppUpdatePriority"] {
        case nil, .null?: break
        case .number(let text)?:
            guard let priority = Int(text), (0...5).contains(priority) else {
                throw bad("has an inAppUpdatePriority outside 0…5")
            }
            release.inAppUpdatePriority = priority
        default: throw bad("has an inAppUpdatePriority that is not a number")
        }
        switch members["releaseNotes"] {
        case nil, .null?: break
        case .array(let notes)?:
            for note in notes {
                guard case .object(let text) = note, case .string(let language)? = text["language"],
                    case .string(let words)? = text["text"]
                else { throw bad("has release notes that are not {language, text}") }
                guard !words.unicodeScalars.contains("\u{0}") else { throw bad("has release notes containing U+0000") }
                release.releaseNotes.append((language, words))
            }
        default: throw bad("has releaseNotes that are not an array")
        }
        return release
    }
}

extension GooglePlayTrack.Release {
    /// The highest version code: what an app compares its own `versionCode` with.
    var versionCode: Int64? { versionCodes.max() }

    /// The text of the `en-US` notes, else the first; nil with none.
    var notes: String? {
        (releaseNotes.first { $0.language == "en-US" } ?? releaseNotes.first)?.text
    }

    /// What the link's status keeps of it.
    var summary: GooglePlayReleaseSummary? {
        guard let code = versionCode else { return nil }
        return GooglePlayReleaseSummary(
            name: name.map { String($0.unicodeScalars.prefix(100)) }, versionCode: String(code), status: status,
            userFraction: userFraction)
    }
}
