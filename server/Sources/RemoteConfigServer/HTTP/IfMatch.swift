import Hummingbird

/// A request's `If-Match`, read one way for every route that takes one (templates, drafts, webhooks, store
/// links): absent, `*`, or the first entity tag it lists, without its quotes.
enum IfMatch: Equatable {
    case absent
    case any
    case tag(String)

    init(_ request: Request) {
        guard let header = request.headers[.ifMatch].map({ Array($0.utf8)[...].trimmingWhitespace }),
            !header.isEmpty
        else {
            self = .absent
            return
        }
        if header.elementsEqual("*".utf8) {
            self = .any
            return
        }
        let first = header.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).first ?? header
        self = .tag(String(decoding: first.trimmingWhitespace.filter { $0 != UInt8(ascii: "\"") }, as: UTF8.self))
    }
}
