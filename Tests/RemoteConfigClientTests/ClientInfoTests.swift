import RemoteConfigClient
import Testing

@Test func sdkVersionNamesTheSDK() {
    #expect(RemoteConfigClientInfo.sdkVersion.hasPrefix("remote-config-swift/"))
}
