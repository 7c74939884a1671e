import Foundation
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

/// Creating a webhook judges its destination as delivering it would: every address the host resolves to, the
/// numeric spellings of IPv4 included, IPv6 forms judged by the IPv4 address they carry, and the IANA
/// special-purpose ranges refused.
@Suite struct WebhookDestinationTests {
    /// Names the hosts file gives a loopback address (beside `localhost`), such as the machine's own name.
    static func hostsFileLoopbackNames() -> [String] {
        let text = (try? String(contentsOfFile: "/etc/hosts", encoding: .utf8)) ?? ""
        var names: [String] = []
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: "#").first?.split(whereSeparator: { $0 == " " || $0 == "\t" }) ?? []
            guard let address = fields.first, address.hasPrefix("127.") || address == "::1" else { continue }
            for name in fields.dropFirst() where !name.lowercased().hasPrefix("localhost") {
                names.append(String(name))
            }
        }
        return names
    }

    static let refused = [
        // Loopback, spelled as inet_aton (and so every resolver) reads it.
        "http://2130706433/hook", "http://0x7f.1/hook", "http://127.1/hook", "http://0177.0.0.1/hook",
        "http://0/hook", "http://localhost./hook", "http://LocalHost../hook", "http://a.localhost./hook",
        // IPv6 forms that carry an IPv4 address: IPv4-compatible, NAT64, 6to4, IPv4-translated.
        "http://[::127.0.0.1]/", "http://[::10.0.0.1]/", "http://[64:ff9b::127.0.0.1]/", "http://[64:ff9b::a9fe:a9fe]/",
        "http://[2002:7f00:1::1]/", "http://[2002:c0a8:0001::1]/", "http://[::ffff:0:10.1.2.3]/",
        // IANA special-purpose ranges.
        "http://192.0.0.8/", "http://192.0.2.10/", "http://198.18.0.1/", "http://198.19.255.254/",
        "http://198.51.100.7/", "http://203.0.113.9/", "http://255.255.255.255/", "http://[fec0::1]/",
        "http://[2001:db8::1]/", "http://[100::1]/", "http://[64:ff9b:1::1]/", "http://[2001::1]/",
    ]

    @Test func loopbackInAnySpellingIPv6CarryingAPrivateAddressAndSpecialPurposeRangesAreRefusedAtCreation()
        async throws
    {
        try await TestApp.run { app in
            try await app.createProject(WebhookFixture.project)
            let names = Self.hostsFileLoopbackNames().map { "http://\($0)/hook" }
            for url in Self.refused + names {
                let reply = try await app.call(
                    .post, WebhookFixture.collection, body: WebhookRequest(url: url, events: ["*"]))
                #expect(reply.status == 400, "\(url): \(reply.text)")
                #expect(reply.errorFields == ["url"], "\(url): \(reply.text)")
            }
            #expect(try await app.admin.listWebhooks(WebhookFixture.project).webhooks.isEmpty)
        }
    }

    @Test func publicAddressesAndIPv6FormsCarryingAPublicAddressAreAccepted() async throws {
        try await TestApp.run { app in
            try await app.createProject(WebhookFixture.project)
            for url in [
                "https://hooks.example.com/rc", "http://93.184.215.14/hook", "http://[2606:4700::1111]/",
                "http://[64:ff9b::808:808]/", "http://[2002:808:808::1]/", "http://[2001:4860:4860::8888]/",
            ] {
                let reply = try await app.call(
                    .post, WebhookFixture.collection, body: WebhookRequest(url: url, events: ["*"]))
                #expect(reply.status == 201, "\(url): \(reply.text)")
            }
        }
    }
}
