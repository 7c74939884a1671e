import Foundation
import HTTPTypes
import NIOCore
import RemoteConfigCore
import RemoteConfigTestSupport
import Testing

@testable import RemoteConfigServer

/// Client answers in gzip for callers that accept it (every stock HTTP client of an app or an OpenFeature
/// provider does): the same answer and the same ETag as the plain form, decoded by a decoder that is not
/// ours (GNU gzip), through the router and on a live connection alike.
@Suite struct ContentEncodingTests {
    /// A template whose answers are long enough to be worth compressing.
    static var template: JSONValue {
        [
            "conditions": [["name": "ios", "expression": "device.os == 'ios'"]],
            "parameters": [
                "release_notes": [
                    "defaultValue": [
                        "value": .string(String(repeating: "Faster start-up and fewer crashes. ", count: 40))
                    ],
                    "valueType": "STRING",
                ],
                "current_version": [
                    "defaultValue": ["value": "2.1.0"], "conditionalValues": ["ios": ["value": "2.2.0"]],
                    "valueType": "STRING",
                ],
                "require_force_update": ["defaultValue": ["value": "false"], "valueType": "BOOLEAN"],
            ],
        ]
    }

    static let gzip: HTTPFields = [.acceptEncoding: "gzip, deflate, br"]

    static func withShop(live: Bool, _ body: @Sendable @escaping (TestApp.Session, String) async throws -> Void)
        async throws
    {
        try await OFREPTests.withShop(live: live, template: { Self.template }, body)
    }

    static func fetch(_ app: TestApp.Session, key: String, headers: HTTPFields = [:]) async throws -> TestApp.Reply {
        var fields = headers
        fields[HTTPField.Name("X-API-Key")!] = key
        return try await app.call(
            .post, ClientCalls.fetchPath, token: nil, json: ClientCalls.iosBody("2.0.0"), headers: fields)
    }

    static func bulk(_ app: TestApp.Session, key: String, headers: HTTPFields = [:]) async throws -> TestApp.Reply {
        var fields = headers
        fields[.authorization] = "Bearer \(key)"
        return try await app.call(
            .post, OFREPTests.flagsPath, token: nil,
            json: ["context": ["targetingKey": "install-1", "platform": "IOS"]], headers: fields)
    }

    @Test(arguments: [false, true]) func aFetchThatAcceptsGzipGetsTheSameAnswerGzippedUnderTheSameETag(live: Bool)
        async throws
    {
        try await Self.withShop(live: live) { app, key in
            let plain = try await Self.fetch(app, key: key)
            #expect(plain.status == 200)
            #expect(plain.headers[.contentEncoding] == nil)
            #expect(plain.headers[.vary] == "Accept-Encoding")
            let gzipped = try await Self.fetch(app, key: key, headers: Self.gzip)
            #expect(gzipped.status == 200)
            #expect(gzipped.headers[.contentEncoding] == "gzip")
            #expect(gzipped.headers[.vary] == "Accept-Encoding")
            #expect(gzipped.headers[.eTag] != nil && gzipped.headers[.eTag] == plain.headers[.eTag])
            #expect(try Self.gunzip(gzipped.body) == plain.body)
            #expect(gzipped.body.count * 4 < plain.body.count, "\(gzipped.body.count) of \(plain.body.count) bytes")
            if live { #expect(gzipped.headers[.contentLength] == String(gzipped.body.count)) }

            var again = Self.gzip
            let eTag: String = try #require(gzipped.headers[.eTag])
            again[.ifNoneMatch] = eTag
            let notModified = try await Self.fetch(app, key: key, headers: again)
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
            #expect(notModified.headers[.eTag] == plain.headers[.eTag])
            #expect(notModified.headers[.contentEncoding] == nil)

            for refused in ["gzip;q=0", "identity", "deflate, br", "*;q=1, gzip;q=0"] {
                let reply = try await Self.fetch(app, key: key, headers: [.acceptEncoding: refused])
                #expect(reply.headers[.contentEncoding] == nil, "\(refused)")
                #expect(reply.body == plain.body, "\(refused)")
            }
        }
    }

    @Test(arguments: [false, true]) func anOFREPBulkAnswerIsGzippedWithEachCallersOwnStreamURL(live: Bool)
        async throws
    {
        try await Self.withShop(live: live) { app, key in
            // The stream URL at the end of a bulk answer is the caller's: each origin's gzip form must end in
            // its own, and agree with its plain form byte for byte.
            for host in ["config.example.com", "other.example.org"] {
                let origin: HTTPFields = [HTTPField.Name("X-Forwarded-Host")!: host]
                let plain = try await Self.bulk(app, key: key, headers: origin)
                #expect(plain.status == 200)
                #expect(plain.headers[.contentEncoding] == nil)
                var fields = origin
                fields[.acceptEncoding] = "gzip"
                let gzipped = try await Self.bulk(app, key: key, headers: fields)
                #expect(gzipped.headers[.contentEncoding] == "gzip")
                #expect(gzipped.headers[.vary] == "Accept-Encoding")
                #expect(gzipped.headers[.eTag] == plain.headers[.eTag])
                let decoded = try Self.gunzip(gzipped.body)
                #expect(decoded == plain.body)
                #expect(String(decoding: decoded, as: UTF8.self).contains("http://\(host)/v1/projects/shop-app/"))
                #expect(gzipped.body.count * 3 < plain.body.count, "\(gzipped.body.count) of \(plain.body.count)")

                let eTag: String = try #require(gzipped.headers[.eTag])
                fields[.ifNoneMatch] = eTag
                let notModified = try await Self.bulk(app, key: key, headers: fields)
                #expect(notModified.status == 304)
                #expect(notModified.headers[.eTag] == plain.headers[.eTag])
            }
        }
    }

    @Test func aShortAnswerIsSentAsItIs() async throws {
        try await ClientCalls.withShop { app, key in
            let reply = try await Self.fetch(app, key: key, headers: Self.gzip)
            #expect(reply.status == 200)
            #expect(reply.body.count < GzipPrefix.minimumLength)
            #expect(reply.headers[.contentEncoding] == nil)
            #expect(reply.headers[.vary] == nil)
        }
    }

    /// An answer is encoded and gzipped when first made: for a template whose answers may be long, that is
    /// done off the event loops, as evaluating costly conditions is.
    @Test func longAnswersAreMadeOffTheEventLoops() throws {
        func answers(_ value: String) throws -> FetchAnswers {
            let template: JSONValue = ["parameters": ["notes": ["defaultValue": ["value": .string(value)]]]]
            return FetchAnswers(try CompiledTemplate(try RemoteConfigTemplate(json: template.jsonBytes())))
        }
        #expect(try !answers(String(repeating: "x", count: 1_000)).isHeavy)
        #expect(try answers(String(repeating: "x", count: HeavyWork.inlineLimit + 1)).isHeavy)
    }

    @Test func gzipMembersWithAndWithoutATailDecodeWithAnotherImplementation() throws {
        var generator = SystemRandomNumberGenerator()
        let words = ["remote", "config", "flag", "\"value\":", "true", "2.1.0", "{", "}", ",", "é", "🚀"]
        func text(_ count: Int) -> ByteBuffer {
            var buffer = ByteBuffer()
            while buffer.readableBytes < count { buffer.writeString(words.randomElement(using: &generator)!) }
            return buffer
        }
        let incompressible = ByteBuffer(bytes: (0..<100_000).map { _ in UInt8.random(in: 0...255) })
        for body in [text(0), text(600), text(300_000), incompressible] {
            let prefix = try #require(GzipPrefix(body))
            for tail in [nil, text(1), text(150), text(70_000)] {
                let member = prefix.member(tail: tail)
                var expected = Data(body.readableBytesView)
                if let tail { expected.append(contentsOf: tail.readableBytesView) }
                #expect(
                    try Self.gunzip(Data(member.readableBytesView)) == expected,
                    "body \(body.readableBytes), tail \(tail?.readableBytes ?? 0)")
            }
        }
    }

    @Test func acceptEncodingIsReadAsRFC9110Says() {
        let cases: [(String, Bool)] = [
            ("gzip", true), ("GZIP", true), ("x-gzip", true), ("gzip, deflate, br", true),
            ("br;q=1.0, gzip;q=0.8", true),
            ("deflate, gzip ; q=0.5", true), ("*", true), ("*;q=0.1", true), ("gzip;q=1, *;q=0", true),
            ("", false), ("identity", false), ("deflate, br", false), ("gzip;q=0", false), ("gzip;q=0.000", false),
            ("*;q=0", false), ("*, gzip;q=0", false), ("gzipped", false), (",,, ,", false), ("gzip;level=9", true),
        ]
        for (value, accepted) in cases {
            #expect(AcceptEncoding.acceptsGzip(Array(value.utf8)[...]) == accepted, "\(value)")
        }
        #expect(!AcceptEncoding.acceptsGzip(HTTPFields()))
    }

    /// Decodes with GNU gzip, an implementation of its own, which also checks the CRC and length trailer.
    static func gunzip(_ data: Data) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["gzip", "-dc"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        // Write from another thread: a large output would otherwise fill its pipe while we still write.
        let writer = Thread {
            input.fileHandleForWriting.write(data)
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        let decoded = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw GunzipFailure(status: process.terminationStatus) }
        return decoded
    }

    struct GunzipFailure: Error {
        let status: Int32
    }
}
