import RemoteConfigCore

/// A table of strings as JSON string literals (quoted and escaped), one contiguous array: escaped once when a
/// template is published, so that encoding an answer copies bytes whatever the template's size, rather than
/// escaping each key and value again for every new caller.
struct JSONStrings: Sendable {
    /// Every literal, one after another.
    private let bytes: [UInt8]
    /// Where literal `i` starts; one more than there are literals, the last being `bytes.count`.
    private let starts: [Int32]

    /// `strings`, each escaped as `JSONWriter` does.
    init(_ strings: [String]) {
        var bytes: [UInt8] = []
        var starts: [Int32] = [0]
        starts.reserveCapacity(strings.count + 1)
        for string in strings {
            JSONWriter.writeString(string, into: &bytes)
            starts.append(Int32(bytes.count))
        }
        self.bytes = bytes
        self.starts = starts
    }

    /// Calls `body` with a view of the table for the length of a loop, so that copying a literal is a
    /// `memcpy` without a reference-count check per string.
    func withView<Result>(_ body: (View) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBufferPointer { bytes in
            try starts.withUnsafeBufferPointer { starts in try body(View(bytes: bytes, starts: starts)) }
        }
    }

    /// The table's bytes, valid within `withView`.
    struct View {
        let bytes: UnsafeBufferPointer<UInt8>
        let starts: UnsafeBufferPointer<Int32>

        /// How many bytes literal `index` is.
        func length(_ index: Int) -> Int { Int(starts[index + 1] - starts[index]) }

        /// Copies literal `index` to `destination` and says how many bytes it wrote.
        func copy(_ index: Int, to destination: UnsafeMutableRawPointer) -> Int {
            let start = Int(starts[index])
            let count = Int(starts[index + 1]) - start
            destination.copyMemory(from: bytes.baseAddress.unsafelyUnwrapped + start, byteCount: count)
            return count
        }
    }
}
