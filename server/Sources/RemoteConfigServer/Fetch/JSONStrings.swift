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

    /// Calls `body` with a view of the table for the length of a loop, so that appending a literal is a copy
    /// without a bounds or reference-count check per string.
    func withView<Result>(_ body: (View) throws -> Result) rethrows -> Result {
        try bytes.withUnsafeBufferPointer { bytes in
            try starts.withUnsafeBufferPointer { starts in try body(View(bytes: bytes, starts: starts)) }
        }
    }

    /// The table's bytes, valid within `withView`.
    struct View {
        let bytes: UnsafeBufferPointer<UInt8>
        let starts: UnsafeBufferPointer<Int32>

        /// Appends literal `index` to `output`.
        func append(_ index: Int, to output: inout [UInt8]) {
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(starts[index])..<Int(starts[index + 1])]))
        }
    }
}
