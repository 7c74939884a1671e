/// One member of a fetch body, as far as the field checks care.
enum FetchFieldValue {
    /// Not sent, or `null`.
    case absent
    case string(String)
    /// Anything that is not a string (a 400 for every field read so).
    case other
}
