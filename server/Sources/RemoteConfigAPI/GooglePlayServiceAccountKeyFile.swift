import RemoteConfigCore

/// The JSON key file Google Cloud gives for a service account (`{"type": "service_account", "client_email", …}`),
/// as far as a Google Play link uses it. Printed, it shows no private key.
public struct GooglePlayServiceAccountKeyFile: Encodable, Sendable, Equatable, CustomStringConvertible {
    public var clientEmail: String
    public var privateKeyId: String
    /// The PEM of the private key.
    public var privateKey: String

    /// The longest private key PEM read: an RSA-4096 key is about 3.3 KB.
    public static let maximumKeyBytes = 16 * 1024

    public init(clientEmail: String, privateKeyId: String, privateKey: String) {
        self.clientEmail = clientEmail
        self.privateKeyId = privateKeyId
        self.privateKey = privateKey
    }

    private enum CodingKeys: String, CodingKey {
        case type
        case clientEmail = "client_email"
        case privateKeyId = "private_key_id"
        case privateKey = "private_key"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode("service_account", forKey: .type)
        try container.encode(clientEmail, forKey: .clientEmail)
        try container.encode(privateKeyId, forKey: .privateKeyId)
        try container.encode(privateKey, forKey: .privateKey)
    }

    public var description: String { "service account key of \(clientEmail) (\(privateKeyId), private key redacted)" }

    /// Reads Google's key file from `value` (the member at `field`), adding a problem naming the member at fault;
    /// nil when any is. Whether the private key is an RSA key is the server's to check.
    static func read(_ value: JSONValue, field: String, _ problems: inout FieldProblems) -> Self? {
        guard case .object(let members) = value else {
            problems.add(
                field, "NOT_A_SERVICE_ACCOUNT_KEY",
                "\(field) must be the JSON key file of a Google Cloud service account")
            return nil
        }
        if let type = members["type"], type != .string("service_account") {
            problems.add(
                "\(field).type", "NOT_A_SERVICE_ACCOUNT_KEY",
                "\(field).type must be service_account: this is not a service account's key file")
            return nil
        }
        func text(_ name: String, _ what: String, limit: Int = 1024) -> String? {
            guard case .string(let text)? = members[name], !text.isEmpty else {
                problems.add("\(field).\(name)", "REQUIRED", "\(field).\(name) is required: \(what)")
                return nil
            }
            guard text.utf8.count <= limit, !text.unicodeScalars.contains("\u{0}") else {
                problems.add("\(field).\(name)", "TOO_LONG", "\(field).\(name) is longer than \(limit) bytes")
                return nil
            }
            return text
        }
        let email = text("client_email", "the service account's e-mail address")
        let keyId = text("private_key_id", "the id of the key, which Google's token endpoint checks")
        let key = text("private_key", "the PEM of the service account's RSA private key", limit: maximumKeyBytes)
        if let email, !email.contains("@") || email.contains(where: \.isWhitespace) {
            problems.add(
                "\(field).client_email", "NOT_AN_EMAIL", "\(field).client_email must be the service account's e-mail")
            return nil
        }
        if let keyId,
            !keyId.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
            })
        {
            problems.add(
                "\(field).private_key_id", "INVALID_KEY_ID",
                "\(field).private_key_id must be the key's id as Google wrote it (letters and digits)")
            return nil
        }
        if let key, !key.contains("-----BEGIN") {
            problems.add(
                "\(field).private_key", "NOT_A_PEM_KEY",
                "\(field).private_key must be the PEM of a private key, as Google's key file holds it")
            return nil
        }
        guard let email, let keyId, let key else { return nil }
        return Self(clientEmail: email, privateKeyId: keyId, privateKey: key)
    }
}
