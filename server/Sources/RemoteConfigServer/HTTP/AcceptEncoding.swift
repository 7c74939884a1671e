import HTTPTypes

/// What a request's `Accept-Encoding` allows (RFC 9110, 12.5.3), as far as client answers care: gzip or not.
enum AcceptEncoding {
    /// Whether the field value (several fields joined with commas) accepts gzip: a `gzip` (or `x-gzip`)
    /// entry whose weight is not zero, or else a `*` whose weight is not zero. `gzip;q=0` refuses it
    /// whatever `*` says. No field at all means identity here: the RFC would allow any coding then, but a
    /// client that says nothing may well not decode one. Read on every client call, so it allocates nothing.
    static func acceptsGzip(_ value: some HeadBytes) -> Bool {
        var gzip: Bool?
        var any: Bool?
        var start = value.startIndex
        while start < value.endIndex {
            let end = value[start...].firstIndex(of: UInt8(ascii: ",")) ?? value.endIndex
            let entry = value[start..<end]
            start = end + 1
            let semicolon = entry.firstIndex(of: UInt8(ascii: ";")) ?? entry.endIndex
            let name = entry[..<semicolon].trimmingWhitespace
            let accepted = semicolon == entry.endIndex || weightIsPositive(entry[(semicolon + 1)...].trimmingWhitespace)
            if name.equalsIgnoringCase("gzip") || name.equalsIgnoringCase("x-gzip") {
                gzip = (gzip ?? false) || accepted
            } else if name.count == 1, name.first == UInt8(ascii: "*") {
                any = (any ?? false) || accepted
            }
        }
        return gzip ?? any ?? false
    }

    /// `acceptsGzip` of a request's `Accept-Encoding` fields, all of them.
    static func acceptsGzip(_ fields: HTTPFields) -> Bool {
        let values = fields[values: .acceptEncoding]
        return !values.isEmpty && acceptsGzip(Array(values.joined(separator: ",").utf8)[...])
    }

    /// `q=0` and `q=0.000` are zero; a nonzero digit makes a weight positive. A parameter that is not a weight
    /// leaves the coding accepted (RFC 9110 has only `q` here; ignoring others is the lenient reading).
    private static func weightIsPositive(_ parameter: some HeadBytes) -> Bool {
        guard parameter.count >= 2, parameter.first == UInt8(ascii: "q") || parameter.first == UInt8(ascii: "Q"),
            parameter[parameter.startIndex + 1] == UInt8(ascii: "=")
        else { return true }
        return parameter.dropFirst(2).contains { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }
    }
}
