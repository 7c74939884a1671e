/// One value of a parameter, default or conditional, as Firebase writes it.
public enum ParameterValue: Sendable, Hashable {
    /// `{"value": "…"}`: an explicit value (always a string on the wire).
    case value(String)
    /// `{"useInAppDefault": true}`: send nothing, so the app's bundled default applies.
    case useInAppDefault
    /// Any other shape (`personalizationValue`, `rolloutValue`, `experimentValue`, or something
    /// malformed), kept verbatim so it round-trips and a validator can judge it.
    ///
    /// Such values are not served: during resolution they count as absent.
    case other(JSONObject)

    /// Reads a value object; only the exact shapes `{"value": string}` and
    /// `{"useInAppDefault": true}` become `.value` / `.useInAppDefault`.
    public init(json object: JSONObject) {
        if object.count == 1, let member = object.members.first {
            if member.key == "value", case .string(let text) = member.value {
                self = .value(text)
                return
            }
            if member.key == "useInAppDefault", member.value == .bool(true) {
                self = .useInAppDefault
                return
            }
        }
        self = .other(object)
    }

    /// The JSON object for this value.
    public var json: JSONObject {
        switch self {
        case .value(let text): return ["value": .string(text)]
        case .useInAppDefault: return ["useInAppDefault": .bool(true)]
        case .other(let object): return object
        }
    }

    /// The served string, when this is an explicit value.
    public var stringValue: String? {
        if case .value(let text) = self { return text }
        return nil
    }
}
