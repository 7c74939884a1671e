import Crypto
import Foundation
import HTTPTypes
import RemoteConfigCore

/// The console's files, read from the bundle once at start.
struct ConsoleFiles: Sendable {
    /// One file: its bytes, media type and a strong ETag of its content.
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
        let etag: String
    }

    /// By file name (the console's files sit in one flat folder).
    let files: [String: File]

    /// What every console response carries: scripts and styles only from this server (no inline script, no
    /// `eval`), no framing (clickjacking), no Referer leaving the page, no content-type sniffing.
    static let securityHeaders: HTTPFields = [
        .contentSecurityPolicy:
            "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        .xFrameOptions: "DENY",
        .referrerPolicy: "no-referrer",
        .xContentTypeOptions: "nosniff",
    ]

    /// The files of the bundle's `console` folder.
    static let bundled: ConsoleFiles = {
        guard let folder = Bundle.module.url(forResource: "console", withExtension: nil),
            let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
        else { return ConsoleFiles(files: [:]) }
        var files: [String: File] = [:]
        for name in names {
            guard let type = ConsoleFiles.contentType(of: name),
                let data = try? Data(contentsOf: folder.appendingPathComponent(name))
            else { continue }
            let bytes = Array(data)
            files[name] = File(bytes: bytes, contentType: type, etag: ConsoleFiles.etag(of: bytes))
        }
        return ConsoleFiles(files: files)
    }()

    /// A strong ETag: the first 16 bytes of the content's SHA-256, in hex.
    static func etag(of bytes: [UInt8]) -> String {
        let hex = SHA256.hash(data: bytes).prefix(16).hexEncoded
        return "\"\(hex)\""
    }

    /// The media type of a console file; nil for a kind the console does not serve.
    static func contentType(of name: String) -> String? {
        switch (name as NSString).pathExtension {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        default: nil
        }
    }
}
