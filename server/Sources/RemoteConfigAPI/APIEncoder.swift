import Foundation
import RemoteConfigCore

/// Encodes the admin API's bodies as `JSONValue`, written by Core's writer (the server's one JSON writer).
///
/// Not Foundation's `JSONEncoder`, which on Linux writes members in no fixed order: here members come in the order
/// a type encodes them (its declaration order), absent optionals are left out, dates are RFC 3339 with
/// milliseconds in UTC, and a whole `Double` is written without `.0`.
public enum APIEncoder {
    /// `value` as a JSON value.
    public static func encode(_ value: some Encodable) throws -> JSONValue {
        let root = Slot()
        try ValueEncoder(slot: root).encodeValue(value)
        return root.value
    }

    /// `value` as JSON bytes (UTF-8).
    public static func bytes(_ value: some Encodable) throws -> [UInt8] {
        try encode(value).jsonBytes()
    }
}

/// Where one value is written; objects and arrays are filled in as their containers are used.
private final class Slot {
    enum Content {
        case value(JSONValue)
        case object([(String, Slot)])
        case array([Slot])
    }

    var content: Content = .value(.null)

    var value: JSONValue {
        switch content {
        case .value(let value): return value
        case .array(let slots): return .array(slots.map(\.value))
        case .object(let members):
            var object = JSONObject()
            for (key, slot) in members { object[key] = slot.value }
            return .object(object)
        }
    }

    /// A new slot for member `key` (replacing one written before).
    func member(_ key: String) -> Slot {
        var members: [(String, Slot)]
        if case .object(let existing) = content { members = existing } else { members = [] }
        let slot = Slot()
        if let index = members.firstIndex(where: { $0.0 == key }) {
            members[index].1 = slot
        } else {
            members.append((key, slot))
        }
        content = .object(members)
        return slot
    }

    /// A new slot at the end of this array.
    func element() -> Slot {
        var slots: [Slot]
        if case .array(let existing) = content { slots = existing } else { slots = [] }
        let slot = Slot()
        slots.append(slot)
        content = .array(slots)
        return slot
    }

    func makeObject() { if case .object = content {} else { content = .object([]) } }
    func makeArray() { if case .array = content {} else { content = .array([]) } }
}

private struct ValueEncoder: Encoder, SingleValueEncodingContainer {
    let slot: Slot
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        slot.makeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(slot: slot, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        slot.makeArray()
        return UnkeyedContainer(slot: slot, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeValue<T: Encodable>(_ value: T) throws {
        switch value {
        case let json as JSONValue: slot.content = .value(json)
        case let date as Date: slot.content = .value(.string(RFC3339.format(date)))
        case let text as String: slot.content = .value(.string(text))
        default: try value.encode(to: self)
        }
    }

    func encodeNil() { slot.content = .value(.null) }
    func encode(_ value: Bool) { slot.content = .value(.bool(value)) }
    func encode(_ value: String) { slot.content = .value(.string(value)) }
    func encode(_ value: Double) throws { try number(value) }
    func encode(_ value: Float) throws { try number(Double(value)) }
    func encode(_ value: Int) { slot.content = .value(.number(String(value))) }
    func encode(_ value: Int8) { slot.content = .value(.number(String(value))) }
    func encode(_ value: Int16) { slot.content = .value(.number(String(value))) }
    func encode(_ value: Int32) { slot.content = .value(.number(String(value))) }
    func encode(_ value: Int64) { slot.content = .value(.number(String(value))) }
    func encode(_ value: UInt) { slot.content = .value(.number(String(value))) }
    func encode(_ value: UInt8) { slot.content = .value(.number(String(value))) }
    func encode(_ value: UInt16) { slot.content = .value(.number(String(value))) }
    func encode(_ value: UInt32) { slot.content = .value(.number(String(value))) }
    func encode(_ value: UInt64) { slot.content = .value(.number(String(value))) }
    func encode<T: Encodable>(_ value: T) throws { try encodeValue(value) }

    /// A finite number, a whole one without `.0` (`"percent": 1`, as API.md writes it and Foundation's encoder
    /// wrote these answers); JSON has no NaN or infinity.
    func number(_ value: Double) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "JSON has no \(value)"))
        }
        var text = String(value)
        if text.hasSuffix(".0") { text.removeLast(2) }
        slot.content = .value(.number(text))
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let slot: Slot
    let codingPath: [any CodingKey]

    func encoder(_ key: Key) -> ValueEncoder {
        ValueEncoder(slot: slot.member(key.stringValue), codingPath: codingPath + [key])
    }

    func encodeNil(forKey key: Key) { encoder(key).encodeNil() }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try encoder(key).encodeValue(value) }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoder(key).container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { encoder(key).unkeyedContainer() }
    func superEncoder() -> any Encoder { ValueEncoder(slot: slot, codingPath: codingPath) }
    func superEncoder(forKey key: Key) -> any Encoder { encoder(key) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let slot: Slot
    let codingPath: [any CodingKey]
    var count: Int {
        if case .array(let slots) = slot.content { return slots.count }
        return 0
    }

    func encoder() -> ValueEncoder { ValueEncoder(slot: slot.element(), codingPath: codingPath) }

    func encodeNil() { encoder().encodeNil() }
    func encode<T: Encodable>(_ value: T) throws { try encoder().encodeValue(value) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        encoder().container(keyedBy: keyType)
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { encoder().unkeyedContainer() }
    func superEncoder() -> any Encoder { encoder() }
}
