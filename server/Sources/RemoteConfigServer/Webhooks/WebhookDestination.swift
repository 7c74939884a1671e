import Foundation
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a webhook may send: `http`/`https` URLs whose host resolves only to addresses outside the loopback,
/// private, link-local, multicast, unspecified and other special-purpose ranges (unless the server allows private
/// destinations). Creation and delivery apply the same check, `refusal(host:addresses:)`, to every address the
/// host resolves to.
enum WebhookDestination {
    /// Why a URL is not one a webhook may have (not http(s), too long, with credentials); nil when well formed.
    /// Looks nothing up.
    static func formProblem(url text: String) -> String? {
        guard text.count <= 2048, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = hostName(url), !host.isEmpty
        else {
            return "url must be an absolute http:// or https:// URL"
        }
        if url.user != nil || url.password != nil { return "url must not carry a user name or password" }
        return nil
    }

    /// Why a URL may not be a destination: its form, its name, or an address it resolves to now, judged as a
    /// delivery judges it. A name that resolves to nothing yet is accepted: every delivery resolves it again.
    static func problem(url text: String, allowPrivate: Bool) async -> String? {
        if let problem = formProblem(url: text) { return problem }
        guard !allowPrivate, let url = URL(string: text), let host = hostName(url) else { return nil }
        if let refusal = refusal(name: host) { return "url points at \(refusal)" }
        let addresses: [SocketAddress]
        do {
            addresses = try await NIOThreadPool.singleton.runIfActive { try resolve(host, port: url.port ?? 443) }
        } catch {
            return nil
        }
        return refusal(host: host, addresses: addresses).map { "url points at \($0)" }
    }

    /// The URL's host without the brackets of an IPv6 literal.
    static func hostName(_ url: URL) -> String? {
        guard var host = url.host else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }

    /// Why `name` is refused before any lookup: `localhost` and names under it (RFC 6761), however many final
    /// dots and whatever case they are written in.
    static func refusal(name: String) -> String? {
        var lowered = name.lowercased()
        while lowered.hasSuffix(".") { lowered.removeLast() }
        if lowered == "localhost" || lowered.hasSuffix(".localhost") { return "this machine (\(name))" }
        return nil
    }

    /// Why a host whose name resolved to `addresses` may not be sent to: the first address in a refused range.
    /// One refused address refuses the host, since a connection may go to any of them.
    static func refusal(host: String, addresses: [SocketAddress]) -> String? {
        if let refusal = refusal(name: host) { return refusal }
        for address in addresses {
            guard let kind = SpecialPurposeAddresses.forbidden(address) else { continue }
            let shown = address.ipAddress ?? "\(address)"
            return shown == host ? "\(kind) address \(host)" : "\(kind) address: \(host) is \(shown)"
        }
        return nil
    }

    /// Every address `host` resolves to, as a connection would resolve it (`getaddrinfo`: the hosts file, DNS,
    /// and the numeric spellings of IPv4 such as `127.1` or `2130706433`). Blocks: call it off the event loops.
    static func resolve(_ host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { throw ResolutionFailure(host: host) }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let entry = next {
            if let raw = entry.pointee.ai_addr {
                switch entry.pointee.ai_family {
                case AF_INET:
                    let v4 = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
                    addresses.append(SocketAddress(v4, host: host))
                case AF_INET6:
                    let v6 = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
                    addresses.append(SocketAddress(v6, host: host))
                default: break
                }
            }
            next = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { throw ResolutionFailure(host: host) }
        return addresses
    }

    /// A host that resolves to no address.
    struct ResolutionFailure: Error, CustomStringConvertible {
        let host: String
        var description: String { "could not resolve \(host)" }
    }
}
