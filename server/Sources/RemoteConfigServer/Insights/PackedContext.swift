import Foundation
import RemoteConfigCore

/// A sampled caller's context as the recorder holds it until the next flush: what `SampledContext` keeps,
/// with its texts in one byte array.
///
/// In a flush interval a project's sample may take every new instance it sees (up to twice the sample size
/// per event loop), for every project a server answers: as a `FetchContext` (seven optional strings, each an
/// allocation once longer than 15 bytes, and two dictionaries) an entry was about 330 bytes, as this about
/// half that.
struct PackedContext: Sendable {
    /// Each of `Field`'s texts in order: a two-byte length (`absent` when not sent), then its UTF-8 bytes.
    private let texts: [UInt8]
    let platform: Platform?
    let firstOpenTime: Date?
    let customSignals: [String: SignalValue]
    /// When the caller sent it.
    let now: Date

    private static let absent: UInt16 = .max

    /// The texts in the order they are packed.
    private enum Field: Int, CaseIterable {
        case appInstanceId, appId, appVersion, appBuild, countryCode, languageCode
    }

    /// About how many bytes a sample holds for this context between flushes (`ByteBudget`): the texts'
    /// array, the custom signals, and its entry in the sample's table (whose load factor leaves a slot
    /// or so empty for each one used).
    var bytes: Int {
        var bytes = 176 + texts.count
        for (key, value) in customSignals { bytes += 64 + key.utf8.count + Self.bytes(of: value) }
        return bytes
    }

    private static func bytes(of value: SignalValue) -> Int {
        if case .string(let text) = value { return text.utf8.count }
        return 8
    }

    /// Packs what a sample keeps of `context`, sent at `now`; texts are cut to `SampledContext.maximumText`
    /// as the stored sample cuts them. One allocation: a sample takes tens of thousands of contexts while it
    /// first fills, on the event loop, and a list of the texts and an array of each one's bytes made it eight.
    /// Custom signals are kept as `SampledContext.kept` keeps them, the ones `reading` names first.
    init(_ context: FetchContext, now: Date, reading: Set<String> = []) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(
            2 * Field.allCases.count + (context.appInstanceId?.utf8.count ?? 0) + (context.appId?.utf8.count ?? 0)
                + (context.appVersion?.utf8.count ?? 0) + (context.appBuild?.utf8.count ?? 0)
                + (context.countryCode?.utf8.count ?? 0) + (context.languageCode?.utf8.count ?? 0))
        // In `Field`'s order.
        Self.pack(context.appInstanceId, into: &bytes)
        Self.pack(context.appId, into: &bytes)
        Self.pack(context.appVersion, into: &bytes)
        Self.pack(context.appBuild, into: &bytes)
        Self.pack(context.countryCode, into: &bytes)
        Self.pack(context.languageCode, into: &bytes)
        self.texts = bytes
        platform = context.platform
        firstOpenTime = context.firstOpenTime
        customSignals =
            context.customSignals.isEmpty ? [:] : SampledContext.kept(context.customSignals, reading: reading)
        self.now = now
    }

    /// Appends `text`'s length and bytes to `bytes`.
    private static func pack(_ text: String?, into bytes: inout [UInt8]) {
        guard let text else {
            bytes.append(UInt8(absent & 0xFF))
            bytes.append(UInt8(absent >> 8))
            return
        }
        // Cut by characters, as the stored sample cuts; a text of at most that many bytes is whole.
        let kept =
            text.utf8.count <= SampledContext.maximumText ? text : String(text.prefix(SampledContext.maximumText))
        let length = UInt16(min(kept.utf8.count, Int(absent) - 1))
        bytes.append(UInt8(length & 0xFF))
        bytes.append(UInt8(length >> 8))
        bytes.append(contentsOf: kept.utf8.prefix(Int(length)))
    }

    /// The context again (without what a sample does not keep: user properties, the OS version).
    var context: FetchContext {
        var values: [String?] = []
        values.reserveCapacity(Field.allCases.count)
        var index = 0
        for _ in Field.allCases {
            let length = UInt16(texts[index]) | UInt16(texts[index + 1]) << 8
            index += 2
            if length == Self.absent {
                values.append(nil)
            } else {
                values.append(String(decoding: texts[index..<index + Int(length)], as: UTF8.self))
                index += Int(length)
            }
        }
        return FetchContext(
            appInstanceId: values[Field.appInstanceId.rawValue], appId: values[Field.appId.rawValue],
            platform: platform, appVersion: values[Field.appVersion.rawValue],
            appBuild: values[Field.appBuild.rawValue], countryCode: values[Field.countryCode.rawValue],
            languageCode: values[Field.languageCode.rawValue], customSignals: customSignals,
            firstOpenTime: firstOpenTime, now: now)
    }
}
