/// The declared type of a parameter's values.
public enum ValueType: String, Sendable, Hashable, CaseIterable {
    case string = "STRING"
    case boolean = "BOOLEAN"
    case number = "NUMBER"
    case json = "JSON"

    /// Reads Firebase's spelling; `PARAMETER_VALUE_TYPE_UNSPECIFIED` means `STRING`, as in Firebase.
    public init?(firebaseName: String) {
        if firebaseName == "PARAMETER_VALUE_TYPE_UNSPECIFIED" {
            self = .string
        } else {
            self.init(rawValue: firebaseName)
        }
    }
}
