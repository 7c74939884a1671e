/// The client routes' paths, defined once: in the pieces the fronts recognise and the access log writes, and
/// whole as the router and metrics name them.
enum ClientPaths {
    /// What a project's client routes start with.
    static let projects = "/v1/projects/"
    /// What follows the project of `remoteConfig:fetch`.
    static let fetchSuffix = "/remoteConfig:fetch"
    /// What follows the project of `remoteConfig:stream`.
    static let streamSuffix = "/remoteConfig:stream"
    /// OFREP's bulk evaluation; a single flag's adds `/{key}`.
    static let ofrepFlags = "/ofrep/v1/evaluate/flags"

    /// What precedes a single flag's key.
    static let ofrepFlagPrefix = ofrepFlags + "/"

    /// `POST /v1/projects/{p}/remoteConfig:fetch`, as the router names it.
    static let fetch = projects + "{p}" + fetchSuffix
    /// `GET /v1/projects/{p}/remoteConfig:stream`, as the router names it.
    static let stream = projects + "{p}" + streamSuffix
    /// `POST /ofrep/v1/evaluate/flags/{key}`, as the router names it.
    static let ofrepFlag = ofrepFlagPrefix + "{key}"
}
