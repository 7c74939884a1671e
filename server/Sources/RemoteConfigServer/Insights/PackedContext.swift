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

    /// Packs what a sample keeps of `context`, sent at `now`; texts are cut to `SampledContext.maximumText`
    /// as the stored sample cuts them.
    init(_ context: FetchContext, now: Date) {
        let texts = [
            context.appInstanceId, context.appId, context.appVersion, context.appBuild, context.countryCode,
            context.languageCode,
        ]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(texts.reduce(2 * texts.count) { $0 + ($1?.utf8.count ?? 0) })
        for text in texts {
            guard let text else {
                bytes.append(UInt8(Self.absent & 0xFF))
                bytes.append(UInt8(Self.absent >> 8))
                continue
            }
            let utf8 =
                text.utf8.count <= SampledContext.maximumText
                ? Array(text.utf8) : Array(String(text.prefix(SampledContext.maximumText)).utf8)
            let length = UInt16(min(utf8.count, Int(Self.absent) - 1))
            bytes.append(UInt8(length & 0xFF))
            bytes.append(UInt8(length >> 8))
            bytes.append(contentsOf: utf8.prefix(Int(length)))
        }
        self.texts = bytes
        platform = context.platform
        firstOpenTime = context.firstOpenTime
        customSignals = context.customSignals
        self.now = now
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
