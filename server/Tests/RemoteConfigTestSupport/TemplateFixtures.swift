import Foundation
import RemoteConfigCore

/// Templates the template tests publish.
public enum TemplateFixtures {
    /// A realistic template exported from Firebase: 51 top-level parameters, two groups, ten conditions with
    /// tag colours, and personalization, rollout and experiment values.
    public static var firebaseExport: Data {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../RemoteConfigServerTests/Fixtures/firebase-export.json")
        return try! Data(contentsOf: url)
    }

    /// `firebaseExport`, parsed (member order as in the file).
    public static var firebaseExportValue: JSONValue {
        get throws { try JSONValue(parsing: [UInt8](firebaseExport)) }
    }

    /// A small force-update template; without `storeURL` the app's own store link applies (useInAppDefault).
    public static func forceUpdateValue(currentVersion: String = "2.3.0", storeURL: String? = nil) -> JSONValue {
        let store: JSONValue = storeURL.map { ["value": .string($0)] } ?? ["useInAppDefault": true]
        return [
            "conditions": [
                ["name": "ios_too_old", "expression": "device.os == 'ios' && app.version.<(['2.0.0'])"],
                ["name": "broken_release", "expression": "app.version.==(['1.1.4'])"],
            ],
            "parameters": [
                "require_force_update": [
                    "defaultValue": ["value": "false"],
                    "conditionalValues": ["ios_too_old": ["value": "true"], "broken_release": ["value": "true"]],
                    "valueType": "BOOLEAN",
                ],
                "current_version": ["defaultValue": ["value": .string(currentVersion)], "valueType": "STRING"],
                "app_store_url": ["defaultValue": store, "valueType": "STRING"],
            ],
        ]
    }

    /// The README's force-update template: `forceUpdateValue` with a store link.
    public static var readmeForceUpdateValue: JSONValue {
        forceUpdateValue(storeURL: "https://apps.apple.com/app/id123")
    }

}
