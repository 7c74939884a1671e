import Foundation
import RemoteConfigStore
import Testing

/// The events a webhook can subscribe to are the ones the API docs list: a name added in one place and not the
/// other would be refused at subscription, or subscribed to and never sent.
@Suite struct WebhookEventNamesTests {
    @Test func theEventTypesAreTheOnesTheDocsList() throws {
        let docs = try String(
            contentsOf: ArchitectureDocTests.root.appendingPathComponent("docs/api.md"), encoding: .utf8)
        let deliveries = try #require(docs.range(of: "### Deliveries"))
        var listed: [String] = []
        for line in docs[deliveries.upperBound...].split(separator: "\n").drop(while: { !$0.hasPrefix("| event") })
            .dropFirst(2)
        {
            guard line.hasPrefix("|") else { break }
            let cell = line.split(separator: "|").first ?? ""
            listed += cell.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        }
        #expect(listed == WebhookEventType.all.map(\.rawValue))
    }
}
