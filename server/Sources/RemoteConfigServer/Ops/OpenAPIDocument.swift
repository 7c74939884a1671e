import Foundation
import RemoteConfigCore

/// The OpenAPI description shipped with the server (the repository's `openapi.yaml`).
public enum OpenAPIDocument {
    /// The file's bytes, read once.
    public static let bytes: [UInt8] = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
            let data = try? Data(contentsOf: url)
        else { return Array("openapi: 3.1.0\n".utf8) }
        return Array(data)
    }()

    /// The file's text.
    public static var text: String { String(decoding: bytes, as: UTF8.self) }
}
