/// Finding a request's end in raw bytes, as a server that reads the request itself must: the head's blank line
/// and the body's `Content-Length`.
enum HTTPBytes {
    /// The length of the first request in `bytes` (head and `Content-Length` body), or nil when it has not all
    /// arrived yet.
    static func requestLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let end = headEnd(bytes) else { return nil }
        let length = end + contentLength(bytes, headEnd: end)
        return length <= bytes.count ? length : nil
    }

    /// The index of the first `\r\n` in `bytes` (the end of the request line), or its count when there is none.
    static func lineEnd(_ bytes: UnsafeRawBufferPointer) -> Int {
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 13, bytes[index + 1] == 10 { return index }
            index += 1
        }
        return bytes.count
    }

    /// The index just past the first `\r\n\r\n` in `bytes`, or nil when the head is not complete yet.
    static func headEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        while index + 3 < bytes.count {
            let fourth = bytes[index + 3]
            if fourth != 10 {  // no match ends here; one may start at the next byte only if this is "\r"
                index += fourth == 13 ? 1 : 4
                continue
            }
            if bytes[index] == 13, bytes[index + 1] == 10, bytes[index + 2] == 13 { return index + 4 }
            index += 1
        }
        return nil
    }

    /// The value of the head's `Content-Length` field (any case), or 0 when there is none.
    private static func contentLength(_ bytes: UnsafeRawBufferPointer, headEnd: Int) -> Int {
        let name = Array("content-length:".utf8)
        var line = lineEnd(bytes) + 2
        while line + name.count < headEnd {
            var matches = true
            for offset in 0..<name.count where bytes[line + offset] | 0x20 != name[offset] {
                matches = false
                break
            }
            var index = line
            if matches {
                index += name.count
                while bytes[index] == 32 { index += 1 }
                var value = 0
                while bytes[index] >= 48, bytes[index] <= 57 {
                    value = value * 10 + Int(bytes[index] - 48)
                    index += 1
                }
                return value
            }
            while index + 1 < headEnd, !(bytes[index] == 13 && bytes[index + 1] == 10) { index += 1 }
            line = index + 2
        }
        return 0
    }
}
