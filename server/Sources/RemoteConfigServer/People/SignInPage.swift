import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The small pages sign-in answers with itself (a failed sign-in), in the console's look, with the console's
/// security headers.
enum SignInPage {
    /// An HTML page with a heading, a sentence, and a link back to the console.
    static func response(status: HTTPResponse.Status, title: String, message: String) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(escape(title)) · remote-config</title><link rel="stylesheet" href="/console/console.css"></head>
            <body><main class="signin-result"><h1>\(escape(title))</h1><p>\(escape(message))</p>
            <p><a href="/console">Back to the console</a></p></main></body></html>
            """
        var headers = ConsoleFiles.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// Text made safe inside HTML.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
