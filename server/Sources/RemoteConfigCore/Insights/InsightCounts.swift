/// One project's counts for one UTC hour on one event loop (or what a flush adds up from several): answers
/// and distinct instances by platform and version, and answers by what each got. Bounded whatever callers
/// send: at most `InsightVersion.maximumPerPlatform` versions per platform, and answers kept as integers per
/// rule, parameter and condition of their template (or per distinct answer, for tallies made from a list),
/// not per call.
public struct InsightCounts: Sendable {
    /// A platform and a version label.
    public struct VersionKey: Sendable, Hashable {
        /// `IOS`, `ANDROID`, `WEB` or `UNKNOWN`.
        public let platform: String
        /// A version, `(other)` or `(invalid)`.
        public let version: String
        /// FNV-1a of both texts: what the key hashes, and all that counting compares (`VersionSlots`), so that
        /// a lookup (one per answer) reads no text; a dictionary of keys still compares the texts.
        let fingerprint: UInt64

        /// Creates a key.
        public init(platform: String, version: String) {
            self.platform = platform
            self.version = version
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in platform.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            hash = (hash ^ 0xFF) &* 0x100_0000_01b3  // never a byte of UTF-8: "A" + "B1" is not "AB" + "1"
            for byte in version.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            fingerprint = hash
        }

        /// Hashes the fingerprint only.
        public func hash(into hasher: inout Hasher) { hasher.combine(fingerprint) }

        /// The same platform and version.
        public static func == (left: VersionKey, right: VersionKey) -> Bool {
            left.fingerprint == right.fingerprint && left.version == right.version && left.platform == right.platform
        }
    }

    /// Answers and distinct instances of one platform and version.
    public struct VersionCount: Sendable {
        /// Client answers.
        public var answers: Int = 0
        /// The instances that got them.
        public var instances = HyperLogLog()

        /// Creates a count.
        public init(answers: Int = 0, instances: HyperLogLog = HyperLogLog()) {
            self.answers = answers
            self.instances = instances
        }
    }

    /// A parameter's source, or a condition (`parameter` nil): what the per-answer counts add up to.
    public struct SourceKey: Sendable, Hashable {
        /// The parameter key; nil for a matched condition's count.
        public let parameter: String?
        /// `CONDITION`, `DEFAULT` or `IN_APP_DEFAULT`; unused for a condition's count.
        public let source: String
        /// The deciding (or matched) condition; empty when none.
        public let condition: String

        /// Creates a key.
        public init(parameter: String?, source: String, condition: String) {
            self.parameter = parameter
            self.source = source
            self.condition = condition
        }
    }

    /// One answer's count: the whole answer (`position` -1) or one parameter of it (an OFREP single flag).
    private struct AnswerKey: Hashable {
        let tally: ObjectIdentifier
        let position: Int32

        /// One word hashed per answer, not two.
        func hash(into hasher: inout Hasher) {
            hasher.combine(UInt(bitPattern: tally) &+ UInt(truncatingIfNeeded: position) &<< 48)
        }
    }

    /// At most this many distinct answers of listed tallies are kept before they are added up.
    static let answerLimit = 4_096

    /// Each platform and version counted, and its count.
    private var slots = VersionSlots()
    /// Version labels per platform (other than `(other)` and `(invalid)`).
    private var versionsPerPlatform: [String: Int] = [:]
    /// Answers of tallies made from a list, by the answer they got, until they are added up.
    private var answers: [AnswerKey: (tally: AnswerTally, count: Int)] = [:]
    /// Answers by position in their template's tables, one `SourceCounts` per template.
    private var tallied: [SourceCounts] = []
    /// Each template's place in `tallied`, by its tables' `ObjectIdentifier` (the counts hold the tables).
    private var talliedPlaces: [ObjectIdentifier: Int] = [:]
    /// The template of the last answer and its place: a project's answers are mostly of one template.
    private var lastTallied: (tables: ObjectIdentifier, place: Int)?
    /// Answers already added up by name: tallies made from a list, and other counts merged in.
    private var added: [SourceKey: Int] = [:]

    /// Empty counts.
    public init() {}

    /// Whether nothing was counted.
    public var isEmpty: Bool { slots.isEmpty && answers.isEmpty && tallied.isEmpty && added.isEmpty }

    /// By platform and version.
    public var versions: [VersionKey: VersionCount] { slots.counts }

    /// Counts one answer to a caller on `platform` (nil: not sent) at `version` (raw, untrusted), with
    /// instance hash `hash` (nil: none sent), that got `tally`, all of it or (`position`) one parameter.
    public mutating func record(
        platform: Platform?, version: String?, hash: UInt64?, tally: AnswerTally, position: Int? = nil
    ) {
        let platformName = platform?.rawValue ?? InsightVersion.unknownPlatform
        // A version counted before this hour is a valid label already: one lookup, no parsing (this runs on
        // every answer). The two reserved labels are never a caller's own version.
        if let raw = version, raw != InsightVersion.other, raw != InsightVersion.invalid,
            let slot = slots.slot(of: VersionKey(platform: platformName, version: raw))
        {
            slots.count(at: slot, hash: hash)
            countAnswer(tally, position: position)
            return
        }
        let place = place(VersionKey(platform: platformName, version: InsightVersion.label(version)))
        slots.count(at: place.slot, hash: hash)
        countAnswer(tally, position: position)
    }

    /// Where `key` is counted, keeping the bound: its own slot, or once its platform has
    /// `InsightVersion.maximumPerPlatform` versions, its platform's `(other)`; made when not counted yet.
    private mutating func place(_ key: VersionKey) -> (slot: Int, key: VersionKey) {
        if let slot = slots.slot(of: key) { return (slot, key) }
        var key = key
        if InsightVersion.isVersion(key.version) {
            if versionsPerPlatform[key.platform, default: 0] >= InsightVersion.maximumPerPlatform {
                key = VersionKey(platform: key.platform, version: InsightVersion.other)
                if let slot = slots.slot(of: key) { return (slot, key) }
            } else {
                versionsPerPlatform[key.platform, default: 0] += 1
            }
        }
        return (slots.insert(key), key)
    }

    private mutating func countAnswer(_ tally: AnswerTally, position: Int?) {
        // An answer of a compiled template is added up at once, by position: with percent conditions nearly
        // every new device's answer is one not counted before, so keeping it by answer first (a dictionary
        // insert, then the same walk later) cost more than adding it up, an increment per parameter at the
        // counter its tally names.
        if let (signature, tables) = tally.signed {
            let id = ObjectIdentifier(tables)
            let place: Int
            if let last = lastTallied, last.tables == id {
                place = last.place
            } else if let known = talliedPlaces[id] {
                place = known
            } else {
                place = tallied.count
                tallied.append(SourceCounts(tables: tables))
                talliedPlaces[id] = place
            }
            lastTallied = (id, place)
            tallied[place].add(signature, rules: tally.decided, position: position, count: 1)
            return
        }
        let answerKey = AnswerKey(tally: ObjectIdentifier(tally), position: Int32(position ?? -1))
        if let index = answers.index(forKey: answerKey) {
            answers.values[index].count += 1
        } else {
            if answers.count >= Self.answerLimit { addUp() }
            answers[answerKey] = (tally, 1)
        }
    }

    /// Adds `other`'s counts (another loop's, or another flush's) to these; versions beyond the bound fold
    /// into `(other)`.
    public mutating func merge(_ other: InsightCounts) {
        for (key, count) in other.versions { add(key, count) }
        for (key, count) in other.sources { added[key, default: 0] += count }
    }

    /// Adds one platform and version's count, keeping the bound; returns the key it was added under (the key
    /// itself, or its platform's `(other)`).
    @discardableResult public mutating func add(_ key: VersionKey, _ count: VersionCount) -> VersionKey {
        let place = place(key)
        slots.add(count, at: place.slot)
        return place.key
    }

    /// Answers by parameter source (`parameter` set) and matched condition (`parameter` nil).
    public var sources: [SourceKey: Int] {
        var copy = self
        copy.addUp()
        var sources = copy.added
        for counts in copy.tallied { counts.forEachCount { sources[$0, default: 0] += $1 } }
        return sources
    }

    /// Adds up the distinct answers of listed tallies counted so far, and forgets them.
    private mutating func addUp() {
        for (key, entry) in answers {
            addUpListed(entry.tally, position: key.position >= 0 ? Int(key.position) : nil, count: entry.count)
        }
        answers.removeAll(keepingCapacity: true)
    }

    private mutating func addUpListed(_ tally: AnswerTally, position: Int?, count: Int) {
        if let position {
            if let source = tally.source(at: position) { added[Self.sourceKey(source), default: 0] += count }
        } else {
            tally.forEachSource { added[Self.sourceKey($0), default: 0] += count }
        }
        for condition in tally.matchedConditions {
            added[SourceKey(parameter: nil, source: "", condition: condition), default: 0] += count
        }
    }

    private static func sourceKey(_ source: AnswerTally.Source) -> SourceKey {
        SourceKey(parameter: source.parameter, source: source.source.rawValue, condition: source.condition ?? "")
    }
}
