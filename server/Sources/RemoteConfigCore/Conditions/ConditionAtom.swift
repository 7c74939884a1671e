import Foundation

/// One comparison in a condition.
public enum ConditionAtom: Sendable, Hashable {
    /// `device.os == 'ios'`, `device.os != 'android'`.
    case platform(EqualityOperator, Platform)
    /// `device.country in ['us', 'gb']`; the codes as written.
    case countryIn([String])
    /// `device.language in ['en', 'pt-BR']`; the tags as written.
    case languageIn([String])
    /// `app.id == 'com.example.shop'`.
    case appId(EqualityOperator, String)
    /// `app.version.>=(['2.1.0'])`, `version(app.customSignal['sdk']) < '1.2.0'`.
    case versionCompare(StringSource, ComparisonOperator, String)
    /// `app.build.contains(['rc'])`, `app.customSignal['plan'].matches(['^pro'])`.
    case stringMethod(StringSource, StringMethod, [String])
    /// `app.customSignal['plan'] == 'pro'` (our addition: plain string equality).
    case stringEquality(StringSource, EqualityOperator, String)
    /// `app.customSignal['cart'] >= 3`.
    case numericCompare(StringSource, ComparisonOperator, Double)
    /// `app.firebaseInstallationId in […]` / `app.instanceId in […]`, against `appInstanceId`.
    case instanceIdIn([String])
    /// `dateTime >= dateTime('2026-12-01T00:00:00', 'Asia/Tokyo')`, against the server's clock.
    case dateTime(ComparisonOperator, ConditionDate)
    /// `app.firstOpenTimestamp > ('2026-01-01T00:00:00')`, against the request's `firstOpenTime`.
    case firstOpenTimestamp(ComparisonOperator, ConditionDate)
    /// `percent('seed') between 10 and 20`; the seed is empty for plain `percent`.
    case percent(seed: String, PercentRange)
}
