import RemoteConfigAPI
import RemoteConfigCore

/// `/v1/me`, `/v1/auth/device*` and `/v1/roleBindings`.
extension AdminClient {
    /// `GET /v1/me`: who this token is, and its roles now.
    public func me() async throws -> Me {
        try await call("GET", "/v1/me").decode(Me.self)
    }

    /// `POST /v1/auth/device`: a device sign-in to show the person.
    public func startDeviceSignIn() async throws -> DeviceAuthorization {
        try await call("POST", "/v1/auth/device", body: Array("{}".utf8)).decode(DeviceAuthorization.self)
    }

    /// `POST /v1/auth/device:token`: the answer as it is (428 while pending, 429 to slow down, 200 at the end).
    public func pollDeviceSignIn(_ deviceCode: String) async throws -> Response {
        try await send(
            "POST", "/v1/auth/device:token", body: APIEncoder.bytes(DeviceTokenRequest(deviceCode: deviceCode)))
    }

    /// `POST /console/auth/logout` with the personal token: ends that session on the server.
    public func endSession() async throws {
        _ = try await call("POST", "/console/auth/logout", body: Array("{}".utf8))
    }
}
