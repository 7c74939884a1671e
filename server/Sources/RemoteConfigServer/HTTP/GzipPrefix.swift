import CZlib
import NIOCore

/// The gzip form (RFC 1952) of a remembered client answer, compressed once when the answer is made, so that
/// a request that accepts gzip costs what any other does while it sends a fraction of the bytes.
///
/// An answer may still need a caller's own ending (an OFREP bulk answer's stream URL), so the compressed part
/// ends on a byte boundary without a final block (`deflate`'s sync flush): `member(tail:)` adds the tail as a
/// stored block, which refers to nothing before it, and the trailer, whose checksum covers both parts
/// (`crc32_combine`). A tail costs a checksum and a copy, never a compression.
struct GzipPrefix: Sendable {
    /// The gzip header and the deflate blocks of the bytes, none of them final.
    let deflated: ByteBuffer
    /// CRC-32 and length of the uncompressed bytes.
    let crc: UInt32
    let length: Int

    /// A compressed part kept apart from its bytes (an OFREP evaluation keeps it at the start of its last
    /// gzip answer).
    init(deflated: ByteBuffer, crc: UInt32, length: Int) {
        self.deflated = deflated
        self.crc = crc
        self.length = length
    }

    /// Below this many bytes an answer is not worth compressing: its head alone is about as long.
    static let minimumLength = 512

    /// Compresses `bytes`; nil when zlib fails, which only a lack of memory makes it do.
    ///
    /// At zlib's fastest level: a new caller of a big template gets an answer nobody had before, made while it
    /// waits, and at Firebase's limits (70 KB of JSON) level 1 compresses 6.5 times faster than the default
    /// level for a member 25% longer (14.2 against 11.3 KB); the realistic template's answers grow by 35
    /// bytes (406 against 371).
    init?(_ bytes: ByteBuffer) {
        let view = bytes.readableBytesView
        var stream = z_stream()
        // Raw deflate (negative window bits): the gzip header and trailer are written here, so that a tail
        // can be added after the last compressed block.
        guard
            deflateInit2_(
                &stream, Z_BEST_SPEED, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        // deflateBound is for a finished stream; a sync flush adds at most an empty stored block.
        let bound = Int(deflateBound(&stream, UInt(view.count))) + 16
        var out = ByteBuffer()
        out.reserveCapacity(Self.header.count + bound)
        out.writeBytes(Self.header)
        var crc = UInt32(crc32(0, nil, 0))
        var finished = false
        view.withContiguousStorageIfAvailable { input in
            crc = UInt32(crc32(UInt(crc), input.baseAddress, UInt32(input.count)))
            out.writeWithUnsafeMutableBytes(minimumWritableBytes: bound) { output in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(input.count)
                stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = UInt32(output.count)
                // With room for the bound, one call takes all the input and flushes it.
                finished = deflate(&stream, Z_SYNC_FLUSH) == Z_OK && stream.avail_in == 0 && stream.avail_out > 0
                return output.count - Int(stream.avail_out)
            }
        }
        guard finished else { return nil }
        deflated = out
        self.crc = crc
        length = view.count
    }

    /// A whole gzip member: the compressed bytes, `tail` uncompressed after them, and the trailer.
    func member(tail: ByteBuffer? = nil) -> ByteBuffer {
        let tailBytes = tail.map { Array($0.readableBytesView) } ?? []
        var out = ByteBuffer()
        out.reserveCapacity(deflated.readableBytes + tailBytes.count + 16)
        out.writeImmutableBuffer(deflated)
        var crc = self.crc
        if !tailBytes.isEmpty {
            let tailCRC = tailBytes.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
            crc = UInt32(crc32_combine(UInt(crc), UInt(tailCRC), Int(tailBytes.count)))
        }
        // Stored blocks hold at most 65,535 bytes each; the last one is final (an empty one if need be).
        var remaining = tailBytes[...]
        repeat {
            let chunk = remaining.prefix(65_535)
            remaining = remaining.dropFirst(chunk.count)
            let count = UInt16(chunk.count)
            out.writeInteger(UInt8(remaining.isEmpty ? 1 : 0))
            out.writeInteger(count, endianness: .little)
            out.writeInteger(~count, endianness: .little)
            out.writeBytes(chunk)
        } while !remaining.isEmpty
        out.writeInteger(crc, endianness: .little)
        out.writeInteger(UInt32(truncatingIfNeeded: length + tailBytes.count), endianness: .little)
        return out
    }

    /// Magic, deflate, no flags, no time, no extra flags, unknown system.
    private static let header: [UInt8] = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255]
}
