private let hexDigits = Array("0123456789abcdef".utf8)

extension Sequence<UInt8> {
    /// The bytes as lowercase hexadecimal, two digits each: how digests, ids and secrets are written.
    public var hexEncoded: String {
        var digits: [UInt8] = []
        digits.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            digits.append(hexDigits[Int(byte >> 4)])
            digits.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
