/// A run of a request head's bytes, as the byte-level readers take them: an `ArraySlice` (a copy, as the
/// router's fields and the tests have them) or a slice of the connection's own buffer, read where it lies.
protocol HeadBytes: RandomAccessCollection where Element == UInt8, Index == Int, SubSequence == Self {}

/// The byte-level helpers every reader of a head shares (the fronts' head readers, `Accept-Encoding`, bearer
/// tokens), written once.
extension HeadBytes {
    /// Without the optional white space (spaces and tabs) that HTTP allows around a value or a list item.
    var trimmingWhitespace: Self {
        var slice = self
        while let first = slice.first, first == 0x20 || first == 0x09 { slice = slice.dropFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice = slice.dropLast() }
        return slice
    }

    /// Whether these bytes are `lowercase`, ignoring ASCII case.
    func equalsIgnoringCase(_ lowercase: StaticString) -> Bool {
        lowercase.withUTF8Buffer { equalsIgnoringCase($0) }
    }

    /// Whether these bytes are `lowercase`, ignoring ASCII case.
    func equalsIgnoringCase(_ lowercase: [UInt8]) -> Bool {
        lowercase.withUnsafeBufferPointer { equalsIgnoringCase($0) }
    }

    /// Whether these bytes start with `lowercase`, ignoring ASCII case.
    func hasPrefixIgnoringCase(_ lowercase: StaticString) -> Bool {
        guard count >= lowercase.utf8CodeUnitCount else { return false }
        return prefix(lowercase.utf8CodeUnitCount).equalsIgnoringCase(lowercase)
    }

    private func equalsIgnoringCase(_ lowercase: UnsafeBufferPointer<UInt8>) -> Bool {
        guard count == lowercase.count else { return false }
        var index = 0
        for byte in self {
            let folded = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            guard folded == lowercase[index] else { return false }
            index += 1
        }
        return true
    }
}
