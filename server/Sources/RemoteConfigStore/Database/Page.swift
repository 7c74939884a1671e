/// One page of a list route's items, in the list's order, and the token of the page after it.
public struct Page<Item: Sendable>: Sendable {
    /// At most the page size asked for.
    public let items: [Item]
    /// What the next call passes back to continue after the last item; nil on the last page.
    public let next: String?

    /// A page of `items` that `next` continues.
    public init(items: [Item], next: String?) {
        self.items = items
        self.next = next
    }

    /// The page of `size` items that `read` gives when asked for at most `limit` rows, its token the `token` of
    /// the last item shown. It asks for one row more than the page holds: that row only says another page
    /// follows, so it is left out.
    static func read(
        size: Int, token: KeyPath<Item, some LosslessStringConvertible>, _ read: (_ limit: Int) async throws -> [Item]
    ) async rethrows -> Page {
        let size = max(size, 0)
        let fetched = try await read(size + 1)
        let shown = Array(fetched.prefix(size))
        return Page(items: shown, next: fetched.count > size ? shown.last.map { $0[keyPath: token].description } : nil)
    }
}
