import RemoteConfigCore

/// A template whose every answer is slow to work out: 40 conditions of backtracking-shaped patterns (which RE2
/// runs in linear time, but not for free) on `app.customSignal['x']`, each giving `banner` a value. What the
/// tests of the heavy-work and impact threads evaluate.
enum SlowTemplate {
    static var template: JSONValue {
        let atom = "app.customSignal['x'].matches(['(a+)+$', '(a|aa)*b'])"
        let expression = Array(repeating: atom, count: 10).joined(separator: " || ")
        let conditions: [JSONValue] = (0..<40).map { ["name": "c\($0)", "expression": .string(expression)] }
        let values = JSONObject((0..<40).map { .init(key: "c\($0)", value: ["value": "v"]) })
        return [
            "conditions": .array(conditions),
            "parameters": ["banner": ["defaultValue": ["value": "none"], "conditionalValues": .object(values)]],
        ]
    }
}
