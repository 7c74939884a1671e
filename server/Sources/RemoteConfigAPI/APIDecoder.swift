import Foundation
import RemoteConfigCore

/// Decodes the admin API's bodies from a parsed `JSONValue` (Core's strict parser read the bytes).
///
/// Not Foundation's `JSONDecoder`, so that every refusal is a `DecodingError` whose context carries a `FieldProblem`
/// with the reason the API has always named (`NOT_A_STRING`, `REQUIRED`, …): strings are strings (a number is not
/// one), a whole number may be written `1.0`, `null` is an absent optional, text holds no U+0000 (PostgreSQL cannot
/// store it), dates are RFC 3339.
public enum APIDecoder {
    /// Decodes `type` from `value`; a `DecodingError` when it does not fit.
    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try ValueDecoder(value: value, codingPath: []).decodeValue(type)
    }

    /// Decodes a body whose decoding takes more than a decoder (`WebhookRequest(from:creating:)`).
    public static func decode<T>(from value: JSONValue, using make: (any Decoder) throws -> T) throws -> T {
        let decoder = ValueDecoder(value: value, codingPath: [])
        do {
            return try make(decoder)
        } catch let problem as FieldProblem {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: problem.message, underlyingError: problem))
        }
    }

    /// Parses `bytes` as JSON and decodes `type` from it.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: Array(bytes))
        } catch {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [], debugDescription: "not valid JSON",
                    underlyingError: FieldProblem(reason: "MALFORMED_JSON", "is not valid JSON")))
        }
        return try decode(type, from: value)
    }
}

/// One position in the document being decoded.
private struct ValueDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else { throw mismatch(FieldProblem.notAnObject) }
        return KeyedDecodingContainer(KeyedContainer<Key>(object: object, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch(FieldProblem.notAnArray) }
        return UnkeyedContainer(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func mismatch(_ problem: FieldProblem, _ type: Any.Type = JSONValue.self) -> DecodingError {
        .typeMismatch(type, .init(codingPath: codingPath, debugDescription: problem.message, underlyingError: problem))
    }

    /// Decodes a value here; a `FieldProblem` a body throws gets this position's path.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            switch type {
            case is String.Type: return try decode(String.self) as! T
            case is Date.Type: return try decodeDate() as! T
            case is JSONValue.Type: return value as! T
            default: return try T(from: self)
            }
        } catch let problem as FieldProblem {
            throw DecodingError.dataCorrupted(
                .init(codingPath: codingPath, debugDescription: problem.message, underlyingError: problem))
        }
    }

    func decodeDate() throws -> Date {
        let text = try decode(String.self)
        guard let date = RFC3339.parse(text) else {
            throw FieldProblem(reason: "INVALID_TIME", "must be an RFC 3339 time such as 2026-11-26T12:00:00Z")
        }
        return date
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard case .number(let text) = value else { throw mismatch(FieldProblem.mismatch(type), type) }
        // 1.0 and 1e0 are the whole number 1 in JSON.
        if let whole = T(text) { return whole }
        if let double = Double(text), let whole = T(exactly: double) { return whole }
        throw mismatch(FieldProblem.mismatch(type), type)
    }

    func floating<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type) throws -> T {
        guard case .number(let text) = value, let number = T(text), number.isFinite else {
            throw mismatch(FieldProblem.mismatch(type), type)
        }
        return number
    }
}

extension ValueDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { value == .null }

    func decode(_ type: Bool.Type) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(FieldProblem.mismatch(type), type) }
        return flag
    }

    func decode(_ type: String.Type) throws -> String {
        guard case .string(let text) = value else { throw mismatch(FieldProblem.mismatch(type), type) }
        if text.unicodeScalars.contains("\u{0}") {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath, debugDescription: "U+0000",
                    underlyingError: FieldProblem(reason: "INVALID_CHARACTER", "must not contain U+0000")))
        }
        return text
    }

    func decode(_ type: Double.Type) throws -> Double { try floating(type) }
    func decode(_ type: Float.Type) throws -> Float { try floating(type) }
    func decode(_ type: Int.Type) throws -> Int { try integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decodeValue(type) }
}

/// The members of an object.
private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: JSONObject
    let codingPath: [any CodingKey]

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    func member(_ key: Key) throws -> ValueDecoder {
        guard let value = object[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key, .init(codingPath: codingPath, debugDescription: "\(key.stringValue) is missing"))
        }
        return ValueDecoder(value: value, codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool { object[key.stringValue] ?? .null == .null }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let member = try member(key)
        if member.value == .null {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: member.codingPath, debugDescription: "\(key.stringValue) is null"))
        }
        return try member.decodeValue(type)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = object[key.stringValue], value != .null else { return nil }
        return try ValueDecoder(value: value, codingPath: codingPath + [key]).decodeValue(type)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try member(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try member(key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { ValueDecoder(value: .object(object), codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try member(key) }
}

/// The elements of an array, in order.
private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    mutating func next() throws -> ValueDecoder {
        let path = codingPath + [AnyKey(intValue: currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                JSONValue.self, .init(codingPath: path, debugDescription: "the array has no more elements"))
        }
        defer { currentIndex += 1 }
        return ValueDecoder(value: elements[currentIndex], codingPath: path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let element = try next()
        if element.value == .null {
            throw DecodingError.valueNotFound(
                type, .init(codingPath: element.codingPath, debugDescription: "the element is null"))
        }
        return try element.decodeValue(type)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try next().container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next().unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next() }
}
