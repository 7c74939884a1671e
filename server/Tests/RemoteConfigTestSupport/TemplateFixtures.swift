import Foundation

/// Templates the template tests publish.
public enum TemplateFixtures {
    /// A realistic template exported from Firebase: 51 top-level parameters, two groups, ten conditions with
    /// tag colours, and personalization, rollout and experiment values.
    public static var firebaseExport: Data {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../RemoteConfigServerTests/Fixtures/firebase-export.json")
        return try! Data(contentsOf: url)
    }

    /// A small force-update template; without `storeURL` the app's own store link applies (useInAppDefault).
    public static func forceUpdate(currentVersion: String = "2.3.0", storeURL: String? = nil) -> [String: Any] {
        let store: [String: Any] = storeURL.map { ["value": $0] } ?? ["useInAppDefault": true]
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
                "current_version": ["defaultValue": ["value": currentVersion], "valueType": "STRING"],
                "app_store_url": ["defaultValue": store, "valueType": "STRING"],
            ],
        ]
    }

    /// The README's force-update template: `forceUpdate` with a store link.
    public static var readmeForceUpdate: [String: Any] {
        forceUpdate(storeURL: "https://apps.apple.com/app/id123")
    }
}
