import Testing

@testable import RemoteConfigStore

/// The typed values the store reads back from text columns: the strings stored today, and what one this
/// server does not know reads as.
@Suite struct StoredValueTests {
    @Test func updateOriginsAndTypesReadBackAsStored() {
        for origin in UpdateOrigin.allCases { #expect(UpdateOrigin(stored: origin.rawValue) == origin) }
        for type in UpdateType.allCases { #expect(UpdateType(stored: type.rawValue) == type) }
        #expect(UpdateOrigin.restAPI.rawValue == "REST_API" && UpdateType.rollback.rawValue == "ROLLBACK")
    }

    @Test func anUnknownOriginOrTypeReadsAsUnspecifiedRatherThanFailing() {
        #expect(UpdateOrigin(stored: "ADMIN_SDK_NODE") == .unspecified)
        #expect(UpdateType(stored: "SOMETHING_NEW") == .unspecified)
    }
}
