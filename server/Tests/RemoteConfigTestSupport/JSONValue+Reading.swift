import RemoteConfigCore

/// Reads for assertions, next to Core's `stringValue`, `boolValue`, `doubleValue`, `arrayValue`, `objectValue` and
/// `value["member"]`.
extension JSONValue {
    /// Element `index` when this is an array and the index is in range; `nil` otherwise.
    public subscript(index: Int) -> JSONValue? {
        guard let elements = arrayValue, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// The number as an `Int`, if this is a whole number (`3`, `3.0`).
    public var intValue: Int? {
        guard case .number(let text) = self else { return nil }
        if let whole = Int(text) { return whole }
        return Double(text).flatMap { Int(exactly: $0) }
    }

    /// The member names in document order, if this is an object.
    public var keys: [String]? { objectValue?.keys }

    /// The members as a dictionary, if this is an object: for comparisons where member order does not matter.
    public var dictionaryValue: [String: JSONValue]? {
        objectValue.map { Dictionary($0.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last }) }
    }

    /// The number of elements or members, if this is an array or an object.
    public var count: Int? { arrayValue?.count ?? objectValue?.count }

    /// Whether this is JSON `null`.
    public var isNull: Bool { self == .null }

}
