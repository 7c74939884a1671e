import Foundation
import RemoteConfigAPI
import RemoteConfigAdminClient
import RemoteConfigCore

/// A plain-text table: a header row and columns padded to their widest cell.
struct Table {
    var headers: [String]
    var rows: [[String]] = []

    init(_ headers: String...) { self.headers = headers }

    /// A row; each cell escaped to one line, so that no text in it moves the cursor or forges a row.
    mutating func add(_ cells: String...) { rows.append(cells.map(TerminalText.field)) }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count {
                widths[index] = max(widths[index], cell.count)
            }
        }
        func format(_ cells: [String]) -> String {
            var line = ""
            for (index, cell) in cells.enumerated() {
                let isLast = index == cells.count - 1
                line += isLast ? cell : cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            // An empty last cell would leave the padding of the one before it.
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
        return ([format(headers)] + rows.map(format)).joined(separator: "\n")
    }

    func print() { Output.line(render()) }
}
