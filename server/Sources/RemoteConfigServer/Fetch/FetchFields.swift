import RemoteConfigCore

/// The top-level members of a fetch body (or of an OpenFeature context) as `FetchRequest` checks them: from a
/// parsed JSON object, or read straight from an SDK's bytes (`FetchBodyFields`).
protocol FetchFields {
    /// The member named by `field`.
    func value(of field: FetchRequest.Field) -> FetchFieldValue
}

extension JSONObject: FetchFields {
    func value(of field: FetchRequest.Field) -> FetchFieldValue {
        switch self[field.rawValue] {
        case nil, .null?: .absent
        case .string(let text)?: .string(text)
        default: .other
        }
    }
}
