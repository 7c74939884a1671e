import RemoteConfigAPI

/// One field-level problem of a request, as in Google API error details: the error body's own type, so the
/// server builds exactly what the command line and the tests read.
public typealias ErrorDetail = ErrorBody.Detail
