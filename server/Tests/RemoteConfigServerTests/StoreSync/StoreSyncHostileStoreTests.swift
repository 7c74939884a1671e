import CZlib
import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// A store answer made by an attacker (or a proxy in the way) cannot take the server's memory, send the lookup
/// elsewhere, or put something that is not a version or an https URL into a parameter.
@Suite struct StoreSyncHostileStoreTests {
    /// A gzip member of `megabytes` MiB of spaces, about a thousandth of that in size: the same deflate blocks
    /// of one MiB, repeated (each block refers only to bytes of its own MiB).
    static func gzipBomb(megabytes: Int) throws -> [UInt8] {
        let chunk = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 20)
        // zlib's best level, as a bomb's maker would use, not the server's fastest one (four times longer).
        let blocks = try #require(Self.deflatedAtBestLevel(chunk))
        let chunkCRC = chunk.withUnsafeBufferPointer { UInt32(crc32(0, $0.baseAddress, UInt32($0.count))) }
        var deflated = ByteBuffer(bytes: [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 255])
        var crc = chunkCRC
        deflated.writeBytes(blocks)
        for _ in 1..<megabytes {
            deflated.writeBytes(blocks)
            crc = UInt32(crc32_combine(UInt(crc), UInt(chunkCRC), Int(chunk.count)))
        }
        let bomb = GzipPrefix(deflated: deflated, crc: crc, length: megabytes << 20)
        return Array(bomb.member().readableBytesView)
    }

    /// `bytes` as raw deflate blocks at zlib's best level, ending on a sync flush (none of them final).
    static func deflatedAtBestLevel(_ bytes: [UInt8]) -> [UInt8]? {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 16)
        let written: Int? = input.withUnsafeMutableBufferPointer { input in
            output.withUnsafeMutableBufferPointer { output in
                stream.next_in = input.baseAddress
                stream.avail_in = UInt32(input.count)
                stream.next_out = output.baseAddress
                stream.avail_out = UInt32(output.count)
                guard deflate(&stream, Z_SYNC_FLUSH) == Z_OK, stream.avail_in == 0 else { return nil }
                return output.count - Int(stream.avail_out)
            }
        }
        return written.map { Array(output.prefix($0)) }
    }

    /// The most memory this process has held since `resetPeakMemory()`, in bytes (Linux's VmHWM).
    static func peakMemory() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.filter(\.isNumber)
            return (Int(digits) ?? 0) * 1024
        }
        return 0
    }

    /// Starts measuring the peak afresh (`5` to clear_refs resets VmHWM to the present size).
    static func resetPeakMemory() {
        try? Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
    }

    @Test func aGzipBombIsRefusedWithoutUnpackingIt() async throws {
        // The probe's bomb: a GiB of spaces in about a MiB.
        let bomb = try Self.gzipBomb(megabytes: 1024)
        #expect(bomb.count < 2 << 20, "the bomb is \(bomb.count) bytes")
        try await FakeAppStore.run { store in
            try await StoreSyncFixture.shop(store) { app, key in
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                let before = try await StoreSyncFixture.entries(app, key)
                // Announced in any case, or not announced at all: nothing is unpacked either way.
                for headers in [
                    ["Content-Type": "text/javascript", "Content-Encoding": "GZIP"],
                    ["Content-Type": "text/javascript"],
                ] {
                    store.answer(.raw(status: 200, headers: headers, body: bomb))
                    Self.resetPeakMemory()
                    let start = Self.peakMemory()
                    let run = try await app.call(.post, StoreSyncFixture.run)
                    let grown = Self.peakMemory() - start
                    #expect((try run.decode(RemoteConfigAPI.StoreLink.self).result) == "FAILED", "\(run.text)")
                    let error = (try run.decode(RemoteConfigAPI.StoreLink.self).lastError) ?? ""
                    let refused = headers["Content-Encoding"] == nil ? "unusable" : "compressed body"
                    #expect(error.contains(refused), "\(error)")
                    // The lookup unpacks nothing and reads at most 2 MiB. Unpacking this bomb took over 2 GiB
                    // (2,075 MiB on 2026-11-26, when the lookup went through FoundationNetworking).
                    #expect(grown < 128 << 20, "memory grew by \(grown >> 20) MiB")
                }
                #expect(try await StoreSyncFixture.entries(app, key) == before)
                #expect(try await StoreSyncFixture.versions(app).count == 1)
            }
        }
    }

    @Test func anAnswerLargerThanTheCapIsCutOffAsItArrives() async throws {
        // Uncompressed this time: 8 MiB of JSON whitespace before the listing.
        let body = [UInt8](repeating: UInt8(ascii: " "), count: 8 << 20) + Array(#"{"results":[]}"#.utf8)
        try await FakeAppStore.run { store in
            try await StoreSyncFixture.shop(store) { app, _ in
                try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                store.answer(.raw(status: 200, headers: ["Content-Type": "text/javascript"], body: body))
                let run = try await app.call(.post, StoreSyncFixture.run)
                #expect((try run.decode(RemoteConfigAPI.StoreLink.self).result) == "FAILED", "\(run.text)")
                #expect(
                    (try run.decode(RemoteConfigAPI.StoreLink.self).lastError)?.contains("more than 2097152 bytes")
                        == true, "\(run.text)")
            }
        }
    }

    @Test func redirectsAreNotFollowed() async throws {
        try await FakeAppStore.run { elsewhere in
            elsewhere.answer(.listing(version: "6.6.6"))
            try await FakeAppStore.run { store in
                try await StoreSyncFixture.shop(store) { app, key in
                    try await app.call(.put, StoreSyncFixture.path, body: StoreSyncFixture.link())
                    let before = try await StoreSyncFixture.entries(app, key)
                    let answers: [FakeAppStore.Answer] = [
                        .redirect(status: 301, location: elsewhere.url + "?id=123456789&country=jp"),
                        .redirect(status: 302, location: elsewhere.url),
                        .redirect(status: 307, location: "/lookup?id=1"),
                        .redirect(status: 308, location: "https://example.com/lookup"),
                        .redirect(status: 302, location: "file:///etc/passwd"),
                    ]
                    for answer in answers {
                        store.answer(answer)
                        let run = try await app.call(.post, StoreSyncFixture.run)
                        #expect(
                            (try run.decode(RemoteConfigAPI.StoreLink.self).result) == "FAILED",
                            "\(answer): \(run.text)")
                        let error = (try run.decode(RemoteConfigAPI.StoreLink.self).lastError) ?? ""
                        #expect(error.contains("redirects are not followed"), "\(answer): \(error)")
                    }
                    #expect(elsewhere.requests.isEmpty, "\(elsewhere.requests)")
                    // One request per sync: the relative redirect to the same store was not followed either.
                    #expect(store.requests.count == answers.count, "\(store.requests)")
                    #expect(try await StoreSyncFixture.entries(app, key) == before)
                    #expect(try await StoreSyncFixture.versions(app).count == 1)
                }
            }
        }
    }
}
