/// A version number a body sends as a string (as Firebase writes them) or as a whole number (as people type
/// them): `"3"`, `3` and `3.0` all read as `"3"`. Whether it names a version is the server's to say.
public struct VersionNumberText: Codable, Sendable, Equatable {
    public var text: String

    public init(_ text: String) {
        self.text = text
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self.text = text
        } else if let whole = try? container.decode(Int64.self) {
            self.text = String(whole)
        } else {
            throw FieldProblem(reason: "NOT_A_STRING", "must be a string or a whole number")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
