import Foundation

/// Checks every rule and limit of API.md on a decoded template, reporting all problems at once.
public enum TemplateValidator {
    /// The limits of API.md.
    public enum Limits {
        public static let parameters = 3000
        public static let conditions = 2000
        public static let keyLength = 256
        public static let conditionNameLength = 100
        public static let valueCharacters = 1_000_000
    }

    /// Every problem of `template`, in document order; empty when it may be published.
    public static func validate(_ template: RemoteConfigTemplate) -> [ValidationIssue] {
        check(template).issues
    }

    /// Every problem of `template`, and its conditions compiled along the way (complete and usable only when
    /// there is no problem), so a publish compiles each expression once.
    static func check(_ template: RemoteConfigTemplate) -> (issues: [ValidationIssue], conditions: [CompiledCondition])
    {
        var issues: [ValidationIssue] = []
        var compiled: [CompiledCondition] = []
        let conditionNames = validateConditions(template.conditions, into: &issues, compiled: &compiled)

        var seenKeys: [String: String] = [:]
        var parameterCount = 0
        var valueCharacters = 0
        func checkParameter(_ key: String, _ parameter: Parameter, at path: String) {
            parameterCount += 1
            if !isValidKey(key) {
                issues.append(
                    ValidationIssue(
                        field: path, reason: "INVALID_KEY",
                        message:
                            "parameter key \"\(key)\" must match ^[a-zA-Z_][0-9a-zA-Z_]*$ and have at most \(Limits.keyLength) characters"
                    ))
            }
            if let first = seenKeys[key] {
                issues.append(
                    ValidationIssue(
                        field: path, reason: "DUPLICATE_KEY",
                        message: "parameter key \"\(key)\" is also used at \(first)"))
            } else {
                seenKeys[key] = path
            }
            if let value = parameter.defaultValue {
                valueCharacters += checkValue(
                    value, type: parameter.valueType, at: path + ".defaultValue", into: &issues)
            }
            for (name, value) in parameter.conditionalValues {
                let valuePath = path + ".conditionalValues.\(name)"
                if !conditionNames.contains(name) {
                    issues.append(
                        ValidationIssue(
                            field: valuePath, reason: "UNKNOWN_CONDITION_REFERENCE",
                            message: "conditional value names condition \"\(name)\", which the template does not define"
                        ))
                }
                valueCharacters += checkValue(value, type: parameter.valueType, at: valuePath, into: &issues)
            }
        }
        for (key, parameter) in template.parameters {
            checkParameter(key, parameter, at: "parameters.\(key)")
        }
        for (groupName, group) in template.parameterGroups {
            for (key, parameter) in group.parameters {
                checkParameter(key, parameter, at: "parameterGroups.\(groupName).parameters.\(key)")
            }
        }
        if parameterCount > Limits.parameters {
            issues.append(
                ValidationIssue(
                    field: "parameters", reason: "LIMIT_EXCEEDED",
                    message: "the template has \(parameterCount) parameters; at most \(Limits.parameters) are allowed"))
        }
        if let description = template.version?.description, description.unicodeScalars.contains("\u{0}") {
            // Stored as PostgreSQL text, which cannot hold U+0000 (values are stored as escaped JSON and can).
            issues.append(
                ValidationIssue(
                    field: "version.description", reason: "INVALID_CHARACTER",
                    message: "version.description must not contain U+0000"))
        }
        if valueCharacters > Limits.valueCharacters {
            issues.append(
                ValidationIssue(
                    field: "parameters", reason: "LIMIT_EXCEEDED",
                    message:
                        "the values have \(valueCharacters) characters in all; at most \(Limits.valueCharacters) are allowed"
                ))
        }
        return (issues, compiled)
    }

    /// Checks names, duplicates, limits and expressions; returns the defined names.
    private static func validateConditions(
        _ conditions: [Condition], into issues: inout [ValidationIssue], compiled: inout [CompiledCondition]
    ) -> Set<String> {
        // One seed table for the whole template, as `compileConditions` builds it.
        var seeds = SeedTable()
        var names: Set<String> = []
        if conditions.count > Limits.conditions {
            issues.append(
                ValidationIssue(
                    field: "conditions", reason: "LIMIT_EXCEEDED",
                    message: "the template has \(conditions.count) conditions; at most \(Limits.conditions) are allowed"
                ))
        }
        for (index, condition) in conditions.enumerated() {
            let path = "conditions[\(index)]"
            if condition.name.isEmpty || condition.name.count > Limits.conditionNameLength {
                issues.append(
                    ValidationIssue(
                        field: path + ".name", reason: "INVALID_CONDITION_NAME",
                        message:
                            "condition name \"\(condition.name)\" must have 1 to \(Limits.conditionNameLength) characters"
                    ))
            }
            if !names.insert(condition.name).inserted {
                issues.append(
                    ValidationIssue(
                        field: path + ".name", reason: "DUPLICATE_CONDITION",
                        message: "condition \"\(condition.name)\" is defined more than once"))
            }
            do {
                compiled.append(
                    try CompiledCondition(name: condition.name, expression: condition.expression, seeds: &seeds))
            } catch {
                issues.append(
                    ValidationIssue(
                        field: path + ".expression", reason: error.validationReason,
                        message: "condition \"\(condition.name)\": \(error.message) at \(error.position)"))
            }
        }
        return names
    }

    /// Checks one value against the parameter's type; returns its length in characters for the total limit.
    private static func checkValue(
        _ value: ParameterValue, type: ValueType, at path: String, into issues: inout [ValidationIssue]
    ) -> Int {
        switch value {
        case .useInAppDefault:
            return 0
        case .other(let object):
            // Firebase's other value kinds are kept as they are; anything else is malformed.
            let known: Set<String> = ["personalizationValue", "rolloutValue", "experimentValue"]
            if object.count == 1, let key = object.keys.first, known.contains(key) { return 0 }
            if object["useInAppDefault"] != nil {
                issues.append(
                    ValidationIssue(
                        field: path + ".useInAppDefault", reason: "INVALID_IN_APP_DEFAULT_VALUE",
                        message: "useInAppDefault must be true and stand alone (no value beside it)"))
            } else {
                issues.append(
                    ValidationIssue(
                        field: path + ".value", reason: "INVALID_VALUE",
                        message: "a value must be {\"value\": \"<string>\"} or {\"useInAppDefault\": true}"))
            }
            return 0
        case .value(let text):
            if let scalar = text.unicodeScalars.first(where: { !isXMLCharacter($0) }) {
                // The plist and XML defaults files carry every value; a character XML 1.0 forbids would make
                // them unreadable (a numeric reference to it is forbidden too).
                let code = "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
                issues.append(
                    ValidationIssue(
                        field: path + ".value", reason: "INVALID_CHARACTER",
                        message:
                            "the value contains \(code), a control character XML 1.0 cannot hold (the plist and XML "
                            + "defaults files carry every value); tab, line feed and carriage return are allowed"))
            }
            if let problem = typeProblem(text, type) {
                issues.append(
                    ValidationIssue(
                        field: path + ".value", reason: "PARAM_VALUE_TYPE_MISMATCH",
                        message: "\"\(text.prefix(60))\" is not \(problem)"))
            }
            return text.count
        }
    }

    /// Whether XML 1.0 may hold `scalar` (its `Char` production): tab, LF, CR, and U+0020 and above except
    /// U+FFFE and U+FFFF (Swift strings hold no surrogates).
    public static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: true
        case 0x20...0xFFFD: true
        case 0x10000...: true
        default: false
        }
    }

    /// Why `text` does not fit `type`, or nil when it does.
    public static func typeProblem(_ text: String, _ type: ValueType) -> String? {
        switch type {
        case .string:
            return nil
        case .boolean:
            return text == "true" || text == "false" ? nil : "a BOOLEAN (\"true\" or \"false\")"
        case .number:
            return isFiniteDecimal(text) ? nil : "a NUMBER (a finite decimal)"
        case .json:
            return (try? JSONValue(parsing: text)) != nil ? nil : "valid JSON"
        }
    }

    /// A JSON-style decimal number (optional sign, digits, fraction, exponent) whose value is finite.
    static func isFiniteDecimal(_ text: String) -> Bool {
        // Scanned by hand: a regex literal is parsed and compiled again on every call (~0.2 ms),
        // which made validating a large template of numbers take seconds.
        var bytes = text.utf8[...]
        func skipDigits() -> Int {
            let before = bytes.count
            while let byte = bytes.first, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { bytes.removeFirst() }
            return before - bytes.count
        }
        func skipSign() {
            if let byte = bytes.first, byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") { bytes.removeFirst() }
        }
        skipSign()
        let integerDigits = skipDigits()
        var fractionDigits = 0
        if bytes.first == UInt8(ascii: ".") {
            bytes.removeFirst()
            fractionDigits = skipDigits()
        }
        guard integerDigits + fractionDigits > 0 else { return false }
        if let byte = bytes.first, byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            bytes.removeFirst()
            skipSign()
            guard skipDigits() > 0 else { return false }
        }
        guard bytes.isEmpty, let value = Double(text) else { return false }
        return value.isFinite
    }

    /// `^[a-zA-Z_][0-9a-zA-Z_]*$`, at most 256 characters.
    public static func isValidKey(_ key: String) -> Bool {
        let scalars = Array(key.unicodeScalars)
        guard (1...Limits.keyLength).contains(scalars.count) else { return false }
        func isLetter(_ s: Unicode.Scalar) -> Bool { ("a"..."z").contains(s) || ("A"..."Z").contains(s) || s == "_" }
        return isLetter(scalars[0]) && scalars.allSatisfy { isLetter($0) || ("0"..."9").contains($0) }
    }
}

extension String {
    /// Zeros before the text up to `width` characters (hex code points: `U+0001`).
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
