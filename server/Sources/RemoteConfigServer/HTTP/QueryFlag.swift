import Hummingbird

extension Request {
    /// A boolean query parameter (`validateOnly`, `force`): absent is false; anything but `true` or `false`
    /// is 400, so a typo never turns a dry run into a real publish.
    func flag(_ name: String) throws -> Bool {
        switch uri.queryParameters.get(name) {
        case nil, "false": return false
        case "true": return true
        default:
            throw APIError.invalidField(name, reason: "NOT_A_BOOLEAN", "\(name) must be true or false")
        }
    }
}
