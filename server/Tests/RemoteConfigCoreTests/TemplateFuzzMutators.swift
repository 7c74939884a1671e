import RemoteConfigTestHistories

@testable import RemoteConfigCore

// The input half of the template fuzz tests (TemplateFuzzTests.swift): seeded mutators that damage
// valid templates as bytes, as JSON trees and as template models.

/// Byte-level damage: the mistakes of hand-edited files, broken transports and hostile clients.
enum ByteMutator {
    static let interestingBytes: [UInt8] = [
        0x00, 0x01, 0x1F, 0x20, 0x7F, 0x80, 0xBF, 0xC0, 0xC1, 0xC2, 0xE0, 0xED, 0xEF, 0xF0, 0xF4, 0xF5, 0xFF,
        UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: "["),
        UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "0"), UInt8(ascii: "-"),
        UInt8(ascii: "e"), UInt8(ascii: "."), UInt8(ascii: "n"), UInt8(ascii: "t"), UInt8(ascii: "u"),
    ]

    /// Invalid UTF-8: overlong, surrogates, beyond U+10FFFF, truncated; plus a BOM and NUL.
    static let rawFragments: [[UInt8]] = [
        [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xF0, 0x9F],
        [0xEF, 0xBB, 0xBF], [0xFF, 0xFE], [0x00],
    ]

    /// Bad and borderline escapes, numbers, literals and separators.
    static let textFragments = [
        #"\ud800"#, #"\udc00"#, #"\ud83d\ude00"#, #"\ud800\u0041"#, #"\ud800\\"#, #"\u0000"#, #"\uZZZZ"#, #"\u12"#,
        #"\x41"#, #"\'"#, "\\", "\"", "1e999999", "-1e-999999", "123456789012345678901234567890.5e+308", "-0.0e-0",
        "01", "1.", ".5", "+1", "-", "1e", "NaN", "Infinity", "nul", "tru", "true", "null", ",", ",,", ":", "{}", "[]",
        #"{"":""}"#, #""a":1,"a":2"#, "//", "/*", "\t\r\n ", "\u{2028}", "😀", "e\u{301}", "\u{212A}",
    ]

    static let fragments = rawFragments + textFragments.map { Array($0.utf8) }

    /// Openers around the parser's depth limit of 512, built once.
    static let nestings: [[UInt8]] = [2, 100, 511, 512, 513, 5_000].flatMap { depth in
        ["[", #"{"a":"#].map { opener in Array(String(repeating: opener, count: depth).utf8) }
    }

    static func mutate(_ original: [UInt8], _ random: inout SeededGenerator) -> [UInt8] {
        var bytes = original
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let position = Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                if position < bytes.count { bytes[position] ^= 1 << UInt8.random(in: 0..<8, using: &random) }
            case 1:
                if position < bytes.count { bytes[position] = interestingBytes.randomElement(using: &random)! }
            case 2:
                bytes.insert(interestingBytes.randomElement(using: &random)!, at: position)
            case 3:
                let length = Int.random(in: 1...16, using: &random)
                bytes.removeSubrange(position..<min(bytes.count, position + length))
            case 4:
                bytes.removeSubrange(position...)
            case 5:
                // Copy a span elsewhere: repeated members, repeated closing brackets, half tokens.
                let start = Int.random(in: 0...bytes.count, using: &random)
                let end = min(bytes.count, start + Int.random(in: 1...64, using: &random))
                bytes.insert(contentsOf: bytes[start..<end], at: position)
            case 6:
                bytes.insert(contentsOf: nestings.randomElement(using: &random)!, at: position)
            default:
                bytes.insert(contentsOf: fragments.randomElement(using: &random)!, at: position)
            }
        }
        return bytes
    }
}

/// Edits of the JSON tree: any node may become anything, so the decoder meets every wrong shape.
enum StructureMutator {
    enum Step: Hashable {
        case key(String)
        case index(Int)
    }

    static let keys = [
        "conditions", "parameters", "parameterGroups", "version", "name", "expression", "tagColor", "defaultValue",
        "conditionalValues", "valueType", "description", "value", "useInAppDefault", "rolloutValue",
        "personalizationValue", "experimentValue", "versionNumber", "updateUser", "email", "rollbackSource", "etag",
        "", "é", "e\u{301}", "\u{212A}", "p", "ios_old", "half", "welcome", "a b", "\u{0}",
    ]

    static let strings = [
        "", " ", "true", "false", "1", "-0", "1e400", "NaN", "Infinity", "0x1F", "+1", ".5", "5.", "١٢٣", "{\"a\":1}",
        "[1,2", "null", "\u{0}", "\u{FEFF}", "e\u{301}", "\u{212A}", "😀", "'", "\"", "\\", "a\nb", "STRING",
        "BOOLEAN", "NUMBER", "JSON", "PARAMETER_VALUE_TYPE_UNSPECIFIED", "float", String(repeating: "x", count: 257),
        String(repeating: "(", count: 70) + "true" + String(repeating: ")", count: 70),
        String(repeating: "ab", count: 5_000),
    ]

    static let numbers = [
        "0", "-0", "1", "12", "-1", "1.5", "1e3", "1E+400", "-1e-400", "123456789012345678901234567890",
        "0.000000000000000000000000000001",
    ]

    /// A random node, found by a random walk from the root (cheaper than listing every node):
    /// one level down at least, then each level stops with probability 1/5.
    static func randomPath(_ value: JSONValue, _ random: inout SeededGenerator) -> [Step] {
        var path: [Step] = []
        var node = value
        while path.isEmpty || Int.random(in: 0..<5, using: &random) != 0 {
            switch node {
            case .object(let object) where !object.isEmpty:
                let member = object.members.randomElement(using: &random)!
                path.append(.key(member.key))
                node = member.value
            case .array(let elements) where !elements.isEmpty:
                let index = Int.random(in: 0..<elements.count, using: &random)
                path.append(.index(index))
                node = elements[index]
            default:
                return path
            }
        }
        return path
    }

    /// Applies `transform` at `path`; a `nil` result removes the node.
    static func updating(_ value: JSONValue, at path: ArraySlice<Step>, _ transform: (JSONValue) -> JSONValue?)
        -> JSONValue?
    {
        guard let step = path.first else { return transform(value) }
        switch (value, step) {
        case (.object(var object), .key(let key)):
            guard let child = object[key] else { return value }
            object[key] = updating(child, at: path.dropFirst(), transform)
            return .object(object)
        case (.array(var elements), .index(let index)) where index < elements.count:
            if let child = updating(elements[index], at: path.dropFirst(), transform) {
                elements[index] = child
            } else {
                elements.remove(at: index)
            }
            return .array(elements)
        default:
            return value
        }
    }

    static func node(_ value: JSONValue, at path: ArraySlice<Step>) -> JSONValue? {
        guard let step = path.first else { return value }
        switch (value, step) {
        case (.object(let object), .key(let key)): return object[key].flatMap { node($0, at: path.dropFirst()) }
        case (.array(let elements), .index(let index)) where index < elements.count:
            return node(elements[index], at: path.dropFirst())
        default: return nil
        }
    }

    static func randomValue(_ random: inout SeededGenerator, depth: Int = 0) -> JSONValue {
        switch Int.random(in: 0..<(depth > 2 ? 4 : 6), using: &random) {
        case 0: return .null
        case 1: return .bool(Bool.random(using: &random))
        case 2: return .number(numbers.randomElement(using: &random)!)
        case 3: return .string(strings.randomElement(using: &random)!)
        case 4:
            return .array(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in randomValue(&random, depth: depth + 1) })
        default:
            var object = JSONObject()
            for _ in 0..<Int.random(in: 0...3, using: &random) {
                object[keys.randomElement(using: &random)!] = randomValue(&random, depth: depth + 1)
            }
            return .object(object)
        }
    }

    static func mutate(_ original: JSONValue, _ random: inout SeededGenerator) -> JSONValue {
        var value = original
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let path = randomPath(value, &random)[...]
            let choice = Int.random(in: 0..<9, using: &random)
            let updated = updating(value, at: path) { node -> JSONValue? in
                switch (choice, node) {
                case (0, _): return randomValue(&random)
                case (1, _): return nil
                case (2, .object(var object)):
                    object[keys.randomElement(using: &random)!] = randomValue(&random)
                    return .object(object)
                case (2, .array(var elements)):
                    if let element = elements.randomElement(using: &random) {
                        elements.insert(element, at: Int.random(in: 0...elements.count, using: &random))
                    }
                    return .array(elements)
                case (3, .object(let object)) where !object.isEmpty:
                    // Rename a member in place; a clash merges, as a repeated key would.
                    let old = object.keys.randomElement(using: &random)!
                    let new =
                        Bool.random(using: &random)
                        ? keys.randomElement(using: &random)! : object.keys.randomElement(using: &random)!
                    return .object(
                        JSONObject(object.members.map { $0.key == old ? .init(key: new, value: $0.value) : $0 }))
                case (4, .string):
                    return .string(strings.randomElement(using: &random)!)
                case (5, _):
                    return [JSONValue.object([:]), .array([]), .null, .string(""), .number("0")].randomElement(
                        using: &random)!
                case (6, _):
                    var nested = node
                    // Mostly shallow: values near the parser's 512 limit are slow to handle in a debug build.
                    let depth = [3, 3, 3, 20, 20, 60, 505, 520].randomElement(using: &random)!
                    for _ in 0..<depth {
                        nested = Bool.random(using: &random) ? .array([nested]) : .object(["x": nested])
                    }
                    return nested
                case (7, .array(var elements)):
                    elements.shuffle(using: &random)
                    return .array(elements)
                case (7, .object(let object)):
                    return .object(JSONObject(object.members.shuffled(using: &random)))
                default:
                    return .number(numbers.randomElement(using: &random)!)
                }
            }
            value = updated ?? .null
            if choice == 8, let copied = node(value, at: randomPath(value, &random)[...]) {
                // Graft a copy of one part elsewhere: a parameter into a group, a condition into values…
                let target = randomPath(value, &random)
                let key = keys.randomElement(using: &random)!
                value =
                    updating(value, at: target[...]) { node in
                        guard case .object(var object) = node else { return node }
                        object[key] = copied
                        return .object(object)
                    } ?? value
            }
        }
        return value
    }

    /// Serializes compactly; sometimes repeats a member of one object, which only text can express.
    static func serialize(_ value: JSONValue, _ random: inout SeededGenerator) -> [UInt8] {
        guard Int.random(in: 0..<6, using: &random) == 0 else { return value.jsonBytes() }
        var objects = 0
        countObjects(value, &objects)
        guard objects > 0 else { return value.jsonBytes() }
        var remaining = Int.random(in: 0..<objects, using: &random)
        var output: [UInt8] = []
        write(value, repeatingIn: &remaining, into: &output)
        return output
    }

    private static func countObjects(_ value: JSONValue, _ count: inout Int) {
        switch value {
        case .object(let object):
            count += 1
            for member in object { countObjects(member.value, &count) }
        case .array(let elements): for element in elements { countObjects(element, &count) }
        default: break
        }
    }

    private static func write(_ value: JSONValue, repeatingIn remaining: inout Int, into output: inout [UInt8]) {
        switch value {
        case .object(let object):
            let repeats = remaining == 0
            remaining -= 1
            var members = object.members
            if repeats, let last = members.last { members.insert(last, at: 0) }
            output.append(UInt8(ascii: "{"))
            for (position, member) in members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                output.append(contentsOf: JSONValue.string(member.key).jsonBytes())
                output.append(UInt8(ascii: ":"))
                write(member.value, repeatingIn: &remaining, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                write(element, repeatingIn: &remaining, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        default:
            output.append(contentsOf: value.jsonBytes())
        }
    }
}

/// Edits of the template model: plausible templates that are valid, or wrong in one precise way.
enum ModelMutator {
    static let keys = [
        "p", "_", "A_1", "max_items", "welcome", "express_pay", "1abc", "has space", "dash-key", "é", "",
        String(repeating: "k", count: 256), String(repeating: "k", count: 257), "\u{212A}", "K",
    ]

    static let conditionNames = [
        "ios_old", "half", "pro", "new", "", String(repeating: "n", count: 100), String(repeating: "n", count: 101),
        "e\u{301}", "é", "with space", "😀",
    ]

    static let values: [ValueType: [String]] = [
        .string: ["", "hello", "😀", "\u{0}", "a\"b\\c", "e\u{301}"],
        .boolean: ["true", "false", "TRUE", "1", "", "yes"],
        .number: ["0", "-1.5", "1e3", "+2", ".5", "5.", "1e400", "NaN", "Infinity", "0x10", "١", "1_000", " 1", ""],
        .json: ["{}", "[]", "null", "1", "\"s\"", "{\"a\":[1,{\"b\":null}]}", "{", "", "{'a':1}", "[1,]"],
    ]

    static func expression(_ random: inout SeededGenerator) -> String {
        var expression = ConditionParserTests.accepted.randomElement(using: &random)!
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            let index = expression.index(
                expression.startIndex, offsetBy: Int.random(in: 0...expression.count, using: &random))
            expression.insert(Array("()[]'\",.!=<>&| 😀\\").randomElement(using: &random)!, at: index)
        case 1:
            expression = (0..<Int.random(in: 2...60, using: &random)).map { _ in "true" }.joined(separator: " && ")
        case 2:
            expression += " && " + ConditionParserTests.accepted.randomElement(using: &random)!
        default: break
        }
        return expression
    }

    static func value(for type: ValueType, _ random: inout SeededGenerator) -> ParameterValue {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return .useInAppDefault
        case 1:
            let objects: [JSONObject] = [
                ["rolloutValue": .object(["rolloutId": .string("r"), "value": .string("x"), "percent": .integer(5)])],
                ["useInAppDefault": .bool(false)], ["value": .string("1"), "useInAppDefault": .bool(true)],
                ["value": .integer(1)], [:], ["unknownKind": .object([:])],
            ]
            return ParameterValue(json: objects.randomElement(using: &random)!)
        default:
            return .value(values[type]!.randomElement(using: &random)!)
        }
    }

    static func mutate(_ original: RemoteConfigTemplate, _ random: inout SeededGenerator) -> RemoteConfigTemplate {
        var template = original
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let conditionIndex = template.conditions.indices.randomElement(using: &random)
            let names = template.conditions.map(\.name)
            switch Int.random(in: 0..<38, using: &random) {
            case 0..<6:
                if let conditionIndex { template.conditions[conditionIndex].expression = expression(&random) }
            case 6..<8:
                if let conditionIndex {
                    template.conditions[conditionIndex].name = conditionNames.randomElement(using: &random)!
                }
            case 8..<10:
                template.conditions.shuffle(using: &random)
            case 10..<12:
                if let conditionIndex { template.conditions.remove(at: conditionIndex) }
            case 12..<14:
                template.conditions.insert(
                    Condition(name: conditionNames.randomElement(using: &random)!, expression: expression(&random)),
                    at: Int.random(in: 0...template.conditions.count, using: &random))
            case 14..<30:
                editParameter(&template, names: names, &random)
            case 30..<33:
                // Move or copy a top-level parameter into a group.
                guard let key = template.parameters.keys.randomElement(using: &random) else { break }
                let group = ["checkout", "g", "new_group", "force_update"].randomElement(using: &random)!
                var target = template.parameterGroups[group] ?? ParameterGroup()
                target.parameters[key] = template.parameters[key]
                template.parameterGroups[group] = target
                if Bool.random(using: &random) { template.parameters[key] = nil }
            case 33..<36:
                template.version = Bool.random(using: &random) ? nil : TemplateVersion(versionNumber: "3")
            case 36:
                template.conditions += (0..<50).map { Condition(name: "c\($0)", expression: "percent <= \($0)") }
            default:
                template.extra[StructureMutator.keys.randomElement(using: &random)!] = StructureMutator.randomValue(
                    &random)
            }
        }
        return template
    }

    private static func editParameter(
        _ template: inout RemoteConfigTemplate,
        names: [String],
        _ random: inout SeededGenerator
    ) {
        let groupName = Bool.random(using: &random) ? nil : template.parameterGroups.keys.randomElement(using: &random)
        var parameters = groupName.flatMap { template.parameterGroups[$0]?.parameters } ?? template.parameters
        let key = parameters.keys.randomElement(using: &random) ?? keys.randomElement(using: &random)!
        var parameter = parameters[key] ?? Parameter()
        var newKey = key
        switch Int.random(in: 0..<6, using: &random) {
        case 0:
            parameter.valueType = ValueType.allCases.randomElement(using: &random)!
            parameter.defaultValue = value(for: parameter.valueType, &random)
        case 1:
            parameter.defaultValue = value(for: parameter.valueType, &random)
        case 2:
            let name = Bool.random(using: &random) ? names.randomElement(using: &random) ?? "none" : "no_such_condition"
            parameter.conditionalValues[name] = value(for: parameter.valueType, &random)
        case 3:
            if let name = parameter.conditionalValues.keys.randomElement(using: &random) {
                parameter.conditionalValues[name] = Bool.random(using: &random) ? nil : value(for: .string, &random)
            }
        case 4:
            newKey = keys.randomElement(using: &random)!
        default:
            parameter.description = StructureMutator.strings.randomElement(using: &random)!
        }
        // Rebuild in order so a renamed key keeps its position (a clash merges into the first).
        parameters = OrderedStringMap(parameters.map { ($0.0 == key ? newKey : $0.0, $0.0 == key ? parameter : $0.1) })
        if parameters[newKey] == nil { parameters[newKey] = parameter }
        if let groupName {
            template.parameterGroups[groupName]?.parameters = parameters
        } else {
            template.parameters = parameters
        }
    }
}
