import Foundation

/// A caller-supplied text that string methods and version comparisons read.
public enum StringSource: Sendable, Hashable {
    /// `app.version`, from the request's `appVersion`.
    case appVersion
    /// `app.build`, from the request's `appBuild`.
    case appBuild
    /// `device.osVersion`, from the request's `osVersion`.
    case osVersion
    /// `app.customSignal['key']`.
    case customSignal(String)
    /// `app.userProperty['key']`.
    case userProperty(String)
}
