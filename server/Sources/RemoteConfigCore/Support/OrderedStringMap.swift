/// A string-keyed map that remembers insertion order, with O(1) lookup.
///
/// Template parameters and conditional values are ordered in JSON, and the order is part of
/// what a user sees when the template comes back, so a plain `Dictionary` will not do.
public struct OrderedStringMap<Value>: Sequence {
    /// The keys in order.
    public private(set) var keys: [String]
    /// The values, parallel to `keys`.
    public private(set) var values: [Value]
    private var positions: [String: Int]

    /// Creates an empty map.
    public init() {
        keys = []
        values = []
        positions = [:]
    }

    /// Creates a map from pairs in order; a repeated key replaces the earlier value in place.
    public init(_ pairs: some Sequence<(String, Value)>) {
        self.init()
        for (key, value) in pairs { self[key] = value }
    }

    /// The number of entries.
    public var count: Int { keys.count }

    /// Whether the map is empty.
    public var isEmpty: Bool { keys.isEmpty }

    /// The position of a key, if present.
    public func index(forKey key: String) -> Int? { positions[key] }

    /// Reads, replaces in place, appends, or (with `nil`) removes an entry.
    public subscript(key: String) -> Value? {
        get { positions[key].map { values[$0] } }
        set {
            if let position = positions[key] {
                if let newValue {
                    values[position] = newValue
                } else {
                    removeValue(at: position)
                }
            } else if let newValue {
                positions[key] = keys.count
                keys.append(key)
                values.append(newValue)
            }
        }
    }

    private mutating func removeValue(at position: Int) {
        positions[keys[position]] = nil
        keys.remove(at: position)
        values.remove(at: position)
        for index in position..<keys.count { positions[keys[index]] = index }
    }

    /// Iterates `(key, value)` pairs in order.
    public func makeIterator() -> Zip2Sequence<[String], [Value]>.Iterator {
        zip(keys, values).makeIterator()
    }
}

extension OrderedStringMap: ExpressibleByDictionaryLiteral {
    /// Creates a map from a literal, in the literal's order.
    public init(dictionaryLiteral elements: (String, Value)...) {
        self.init(elements)
    }
}

extension OrderedStringMap: Sendable where Value: Sendable {}

extension OrderedStringMap: Equatable where Value: Equatable {
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.keys == rhs.keys && lhs.values == rhs.values
    }
}

extension OrderedStringMap: Hashable where Value: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(keys)
        hasher.combine(values)
    }
}
