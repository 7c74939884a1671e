/// One stream request as either way in (`StreamFront` on the event loop, `StreamController` behind the
/// router) reads it, for `StreamEndpoint` to decide.
struct StreamCall: Sendable {
    /// The `{p}` of the path.
    var project: String
    /// The client key (`ClientAuth.secret`).
    var secret: String?
    /// The events' format; nil when `format=` names none.
    var format: StreamFormat?
    /// `Last-Event-ID`, as sent.
    var lastEventID: String?
}
