/// A template made ready to publish in one pass: validated, its conditions compiled once (the validator
/// compiles them, the serving tables reuse them), and the JSON text to store. The publishing server installs
/// `compiled` in its cache instead of reading back what it stored.
public struct PreparedTemplate: Sendable {
    /// The template as sent (with its `version` object, if any).
    public let template: RemoteConfigTemplate
    /// The template compiled for serving (not yet numbered: see `CompiledTemplate.versioned`).
    public let compiled: CompiledTemplate
    /// The JSON text to store: everything but `version`.
    public let storedJSON: String

    /// Why a template cannot be published.
    public enum Failure: Error, Sendable {
        /// The JSON is not a template (malformed, or a field of the wrong shape).
        case decoding(TemplateDecodingError)
        /// A decoded template that breaks rules or limits; every problem, in document order.
        case invalid([ValidationIssue])
    }

    /// Decodes `bytes` and prepares the template; `adjust` may change it after decoding (a draft drops its
    /// base version) and `extraIssues` adds rules of the caller (text limits).
    public static func prepare(
        json bytes: some Collection<UInt8>, adjust: (inout RemoteConfigTemplate) -> Void = { _ in },
        extraIssues: (RemoteConfigTemplate) -> [ValidationIssue] = { _ in [] }
    ) throws(Failure) -> PreparedTemplate {
        var template: RemoteConfigTemplate
        do {
            template = try RemoteConfigTemplate(json: bytes)
        } catch {
            throw .decoding(error)
        }
        adjust(&template)
        return try PreparedTemplate(template, extraIssues: extraIssues)
    }

    /// Validates and compiles a decoded template.
    public init(
        _ template: RemoteConfigTemplate, extraIssues: (RemoteConfigTemplate) -> [ValidationIssue] = { _ in [] }
    ) throws(Failure) {
        let (issues, conditions) = TemplateValidator.check(template)
        let all = issues + extraIssues(template)
        guard all.isEmpty else { throw .invalid(all) }
        self.template = template
        self.compiled = CompiledTemplate(template, conditions: conditions)
        var stored = template
        stored.version = nil
        self.storedJSON = stored.jsonValue.jsonString
    }
}
