/// A named condition as stored in the template; see `ConditionExpression` for its language.
public struct Condition: Sendable, Hashable {
    /// The name that `conditionalValues` refer to.
    public var name: String
    /// The expression text, e.g. `device.os == 'ios' && app.version.<(['2.0.0'])`.
    public var expression: String
    /// The console colour (`BLUE`, `ORANGE`, …); kept, never interpreted.
    public var tagColor: String?
    /// Members this version does not know, re-emitted unchanged.
    public var extra: JSONObject

    /// Creates a condition.
    public init(name: String, expression: String, tagColor: String? = nil, extra: JSONObject = [:]) {
        self.name = name
        self.expression = expression
        self.tagColor = tagColor
        self.extra = extra
    }
}
