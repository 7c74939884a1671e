import Foundation
import NIOCore

/// Where a webhook may send: `http`/`https` URLs whose host is not in a loopback, private, link-local,
/// multicast or unspecified range (unless the server allows private destinations).
enum WebhookDestination {
    /// Why a URL or an address is refused; nil when it may be used.
    static func problem(url text: String, allowPrivate: Bool) -> String? {
        guard text.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = hostName(url), !host.isEmpty
        else {
            return "url must be an absolute http:// or https:// URL"
        }
        if url.user != nil || url.password != nil { return "url must not carry a user name or password" }
        if allowPrivate { return nil }
        let lowered = host.lowercased()
        if lowered == "localhost" || lowered.hasSuffix(".localhost") {
            return "url points at this machine (localhost)"
        }
        if let address = try? SocketAddress(ipAddress: host, port: 0), let reason = forbidden(address) {
            return "url points at \(reason) address \(host)"
        }
        return nil
    }

    /// The URL's host without the brackets of an IPv6 literal.
    static func hostName(_ url: URL) -> String? {
        guard var host = url.host else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }

    /// The kind of range `address` is in when it may not be a destination (`loopback`, `private`, …); nil when
    /// it may.
    static func forbidden(_ address: SocketAddress) -> String? {
        switch address {
        case .v4(let v4):
            return forbidden(v4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            return forbidden(v6: bytes)
        default:
            return "a non-IP"
        }
    }

    static func forbidden(v4 value: UInt32) -> String? {
        func within(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ bits: UInt32) -> Bool {
            let base = a << 24 | b << 16 | c << 8 | d
            let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
            return value & mask == base & mask
        }
        if within(127, 0, 0, 0, 8) { return "a loopback" }
        if within(0, 0, 0, 0, 8) { return "an unspecified" }
        if within(10, 0, 0, 0, 8) || within(172, 16, 0, 0, 12) || within(192, 168, 0, 0, 16)
            || within(100, 64, 0, 0, 10)
        {
            return "a private"
        }
        if within(169, 254, 0, 0, 16) { return "a link-local" }
        if within(224, 0, 0, 0, 4) { return "a multicast" }
        if within(240, 0, 0, 0, 4) { return "a reserved" }
        return nil
    }

    static func forbidden(v6 bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return "a malformed" }
        if bytes.allSatisfy({ $0 == 0 }) { return "an unspecified" }
        if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] == 1 { return "a loopback" }
        // IPv4-mapped (::ffff:a.b.c.d): judged as the IPv4 address it is.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            let v4 = UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15])
            return forbidden(v4: v4)
        }
        if bytes[0] == 0xfe, bytes[1] & 0xc0 == 0x80 { return "a link-local" }
        if bytes[0] & 0xfe == 0xfc { return "a private" }
        if bytes[0] == 0xff { return "a multicast" }
        return nil
    }
}
