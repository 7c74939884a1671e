/// The members of a fetch body that `FetchRequest` reads, found in one pass over the bytes without building a
/// JSON tree: what an SDK sends (a flat object of short ASCII strings) costs a scan and a string per field.
///
/// `scan` answers only for bodies it can read exactly as the strict parser would: an object whose values are
/// strings of printable ASCII without escapes, or `null`, with no repeated member and no signals. For
/// anything else (an escape, a number, a nested object, a syntax error) it returns nil and the body goes to
/// the full parser, so every error answer stays that parser's.
struct FetchBodyFields: FetchFields {
    private var appInstanceId: String?
    private var appId: String?
    private var platform: String?
    private var appVersion: String?
    private var appBuild: String?
    private var osVersion: String?
    private var countryCode: String?
    private var languageCode: String?
    private var firstOpenTime: String?
    private var timeZone: String?
    private var sdkVersion: String?

    func value(of field: FetchRequest.Field) -> FetchFieldValue {
        let text: String? =
            switch field {
            case .appInstanceId: appInstanceId
            case .appId: appId
            case .platform: platform
            case .appVersion: appVersion
            case .appBuild: appBuild
            case .osVersion: osVersion
            case .countryCode: countryCode
            case .languageCode: languageCode
            case .firstOpenTime: firstOpenTime
            case .timeZone: timeZone
            case .sdkVersion: sdkVersion
            }
        return text.map { .string($0) } ?? .absent
    }

    private mutating func set(_ field: FetchRequest.Field, _ text: String) {
        switch field {
        case .appInstanceId: appInstanceId = text
        case .appId: appId = text
        case .platform: platform = text
        case .appVersion: appVersion = text
        case .appBuild: appBuild = text
        case .osVersion: osVersion = text
        case .countryCode: countryCode = text
        case .languageCode: languageCode = text
        case .firstOpenTime: firstOpenTime = text
        case .timeZone: timeZone = text
        case .sdkVersion: sdkVersion = text
        }
    }

    /// At most this many members; a longer body goes to the full parser.
    static let memberLimit = 32

    /// The fields of `bytes`, or nil when the full parser must read it (see the type's comment).
    static func scan(_ bytes: UnsafeRawBufferPointer) -> FetchBodyFields? {
        var cursor = Cursor(bytes: bytes)
        var fields = FetchBodyFields()
        var seen: UInt32 = 0
        // Names of members this reader skips, to find a repeated one (which the strict parser rejects).
        var skipped: [Range<Int>] = []
        var members = 0
        cursor.skipWhitespace()
        guard cursor.take(UInt8(ascii: "{")) else { return nil }
        cursor.skipWhitespace()
        if !cursor.take(UInt8(ascii: "}")) {
            while true {
                members += 1
                guard members <= memberLimit, let name = cursor.string() else { return nil }
                cursor.skipWhitespace()
                guard cursor.take(UInt8(ascii: ":")) else { return nil }
                cursor.skipWhitespace()
                let value: Range<Int>?
                if let text = cursor.string() {
                    value = text
                } else if cursor.takeNull() {
                    value = nil
                } else {
                    return nil
                }
                if let field = FetchRequest.Field(bytes[name]) {
                    let bit: UInt32 = 1 << field.position
                    guard seen & bit == 0 else { return nil }
                    seen |= bit
                    if let value { fields.set(field, String(decoding: bytes[value], as: UTF8.self)) }
                } else {
                    let nameBytes = bytes[name]
                    // Signals are objects; any other value of theirs is an error the full parser words.
                    if FetchRequest.signalFields.contains(where: { $0.utf8.elementsEqual(nameBytes) }) { return nil }
                    if skipped.contains(where: { bytes[$0].elementsEqual(nameBytes) }) { return nil }
                    skipped.append(name)
                }
                cursor.skipWhitespace()
                if cursor.take(UInt8(ascii: ",")) {
                    cursor.skipWhitespace()
                    continue
                }
                guard cursor.take(UInt8(ascii: "}")) else { return nil }
                break
            }
        }
        cursor.skipWhitespace()
        return cursor.atEnd ? fields : nil
    }

    private struct Cursor {
        let bytes: UnsafeRawBufferPointer
        var index = 0

        var atEnd: Bool { index == bytes.count }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func takeNull() -> Bool {
            guard bytes.count - index >= 4, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
                bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l")
            else { return false }
            index += 4
            return true
        }

        /// The contents of a string of printable ASCII without escapes at the cursor; nil (the cursor
        /// anywhere) for anything else.
        mutating func string() -> Range<Int>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return start..<(index - 1)
                }
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            return nil
        }
    }
}
