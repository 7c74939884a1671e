import Foundation
import NIOCore

/// Which addresses a webhook may not reach: loopback, private, link-local, multicast, unspecified, and the rest
/// of IANA's special-purpose registries that are not globally reachable (documentation, benchmarking, protocol
/// assignments, reserved). IPv6 forms that carry an IPv4 address are judged by the address they carry.
enum SpecialPurposeAddresses {
    /// The kind of range `address` is in when it may not be a destination (`a loopback`, `a private`, …); nil
    /// when it may.
    static func forbidden(_ address: SocketAddress) -> String? {
        switch address {
        case .v4(let v4):
            return forbidden(v4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            return forbidden(v6: withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) })
        default:
            return "a non-IP"
        }
    }

    /// IPv4 ranges refused, most specific first, as (address, prefix length, kind).
    static let v4Ranges: [(UInt32, UInt32, String)] = [
        (v4(0, 0, 0, 0), 8, "an unspecified"), (v4(127, 0, 0, 0), 8, "a loopback"),
        (v4(10, 0, 0, 0), 8, "a private"), (v4(172, 16, 0, 0), 12, "a private"),
        (v4(192, 168, 0, 0), 16, "a private"), (v4(100, 64, 0, 0), 10, "a private"),
        (v4(169, 254, 0, 0), 16, "a link-local"),
        (v4(192, 0, 0, 0), 24, "a special-purpose"), (v4(192, 88, 99, 0), 24, "a special-purpose"),
        (v4(192, 0, 2, 0), 24, "a documentation"), (v4(198, 51, 100, 0), 24, "a documentation"),
        (v4(203, 0, 113, 0), 24, "a documentation"), (v4(198, 18, 0, 0), 15, "a benchmarking"),
        (v4(224, 0, 0, 0), 4, "a multicast"), (v4(240, 0, 0, 0), 4, "a reserved"),
    ]

    static func v4(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32) -> UInt32 { a << 24 | b << 16 | c << 8 | d }

    static func forbidden(v4 value: UInt32) -> String? {
        for (base, bits, kind) in v4Ranges {
            let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
            if value & mask == base & mask { return kind }
        }
        return nil
    }

    /// IPv6 ranges refused, as (leading bytes, prefix length, kind); a prefix is compared bit by bit.
    static let v6Ranges: [([UInt8], Int, String)] = [
        ([0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, "a special-purpose"),  // local-use IPv4/IPv6 translation
        ([0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, "a special-purpose"),  // discard-only
        ([0x20, 0x01, 0x0d, 0xb8], 32, "a documentation"), ([0x3f, 0xff], 20, "a documentation"),
        ([0x5f, 0x00], 16, "a special-purpose"),  // segment routing identifiers
        ([0xfc], 7, "a private"), ([0xfe, 0x80], 10, "a link-local"), ([0xfe, 0xc0], 10, "a site-local"),
        ([0xff], 8, "a multicast"),
    ]

    /// The globally reachable blocks inside 2001::/23 (IETF protocol assignments), which is refused otherwise
    /// (Teredo, benchmarking, ORCHID).
    static let globalIn2001: [([UInt8], Int)] = [
        ([0x20, 0x01, 0x00, 0x03], 32), ([0x20, 0x01, 0x00, 0x04, 0x01, 0x12], 48), ([0x20, 0x01, 0x00, 0x20], 28),
        ([0x20, 0x01, 0x00, 0x30], 28),
    ]

    static func within(_ bytes: [UInt8], _ prefix: [UInt8], _ bits: Int) -> Bool {
        for bit in 0..<bits {
            let index = bit / 8
            let mask = UInt8(0x80) >> UInt8(bit % 8)
            let expected = index < prefix.count ? prefix[index] & mask : 0
            if bytes[index] & mask != expected { return false }
        }
        return true
    }

    static func forbidden(v6 bytes: [UInt8]) -> String? {
        guard bytes.count == 16 else { return "a malformed" }
        if bytes.allSatisfy({ $0 == 0 }) { return "an unspecified" }
        if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] == 1 { return "a loopback" }
        if let carried = carriedIPv4(bytes) { return forbidden(v4: carried) }
        for (prefix, bits, kind) in v6Ranges where within(bytes, prefix, bits) { return kind }
        if within(bytes, [0x20, 0x01, 0x00, 0x00], 23),
            !globalIn2001.contains(where: { within(bytes, $0.0, $0.1) })
        {
            return "a special-purpose"
        }
        // Global unicast is 2000::/3; everything else is reserved by the IETF.
        if bytes[0] & 0xe0 != 0x20 { return "a reserved" }
        return nil
    }

    /// The IPv4 address an IPv6 address stands for: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-translated
    /// (`::ffff:0:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) and 6to4
    /// (`2002:aabb:ccdd::`); packets to them reach that IPv4 address.
    static func carriedIPv4(_ bytes: [UInt8]) -> UInt32? {
        func word(_ from: Int) -> UInt32 {
            UInt32(bytes[from]) << 24 | UInt32(bytes[from + 1]) << 16 | UInt32(bytes[from + 2]) << 8
                | UInt32(bytes[from + 3])
        }
        let zeros = { (range: Range<Int>) in bytes[range].allSatisfy { $0 == 0 } }
        if zeros(0..<10), bytes[10] == 0xff, bytes[11] == 0xff { return word(12) }
        if zeros(0..<8), bytes[8] == 0xff, bytes[9] == 0xff, zeros(10..<12) { return word(12) }
        if zeros(0..<12) { return word(12) }
        if within(bytes, [0x00, 0x64, 0xff, 0x9b], 96) { return word(12) }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return word(2) }
        return nil
    }
}
