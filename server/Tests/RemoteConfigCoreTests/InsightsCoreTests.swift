import Foundation
import RemoteConfigCore
import RemoteConfigTestHistories
import Testing

@Suite("Insights: sketches, versions, samples")
struct InsightsCoreTests {
    /// Distinct hashes from a seeded generator (as `InstanceHash` would give for distinct ids).
    private static func hashes(_ count: Int, seed: UInt64) -> [UInt64] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in generator.next() }
    }

    @Test("HyperLogLog stays within 2% of the true count from 100 to 1,000,000 instances")
    func hyperLogLogError() {
        var worst = 0.0
        var squares = 0.0
        var runs = 0
        for (index, truth) in [100, 1_000, 10_000, 20_000, 100_000, 300_000, 1_000_000].enumerated() {
            for trial in 0..<(truth >= 300_000 ? 2 : 6) {
                var sketch = HyperLogLog()
                for hash in Self.hashes(truth, seed: UInt64(index * 100 + trial + 1)) { sketch.add(hash: hash) }
                let error = (sketch.estimate - Double(truth)) / Double(truth)
                worst = max(worst, abs(error))
                squares += error * error
                runs += 1
            }
        }
        let rootMeanSquare = (squares / Double(runs)).squareRoot()
        #expect(rootMeanSquare <= 0.02, "relative standard error \(rootMeanSquare)")
        #expect(worst <= 0.06, "worst relative error \(worst)")
    }

    @Test("Real instance ids hash uniformly: 200,000 ids within 2%")
    func instanceIds() {
        var sketch = HyperLogLog()
        for index in 0..<200_000 { sketch.add(hash: InstanceHash.of("instance-\(index)")) }
        #expect(abs(sketch.estimate - 200_000) / 200_000 <= 0.02)
    }

    @Test("Merging is the union: an instance seen by two servers counts once")
    func mergeIsUnion() {
        let all = Self.hashes(150_000, seed: 7)
        var first = HyperLogLog()
        var second = HyperLogLog()
        var both = HyperLogLog()
        for (index, hash) in all.enumerated() {
            if index < 100_000 { first.add(hash: hash) }
            if index >= 50_000 { second.add(hash: hash) }
            both.add(hash: hash)
        }
        var merged = first
        merged.merge(second)
        #expect(merged == both)
        #expect(abs(merged.estimate - 150_000) / 150_000 <= 0.03)
        var again = merged
        again.merge(first)
        #expect(again == merged)
    }

    @Test("Sketches serialize sparse while small and in 3,073 bytes when large, and read back the same")
    func serialization() throws {
        var small = HyperLogLog()
        for hash in Self.hashes(10, seed: 3) { small.add(hash: hash) }
        let smallBytes = small.serialized()
        #expect(smallBytes.count == 1 + 3 * 10)
        #expect(try #require(HyperLogLog(serialized: smallBytes)) == small)
        var large = HyperLogLog()
        for hash in Self.hashes(50_000, seed: 4) { large.add(hash: hash) }
        let largeBytes = large.serialized()
        #expect(largeBytes.count == 3_073)
        let read = try #require(HyperLogLog(serialized: largeBytes))
        #expect(read == large)
        #expect(read.estimate == large.estimate)
        #expect(HyperLogLog(serialized: [9, 1, 2]) == nil)
        #expect(HyperLogLog(serialized: [1, 1]) == nil)
        #expect(HyperLogLog(serialized: []) == nil)
    }

    @Test("A sketch of a few hundred instances is kept whole in memory and still stored sparse")
    func wholeInMemorySparseStored() throws {
        var sketch = HyperLogLog()
        var sparse = HyperLogLog()
        for (index, hash) in Self.hashes(600, seed: 9).enumerated() {
            sketch.add(hash: hash)
            if index < 200 { sparse.add(hash: hash) }
        }
        let bytes = sketch.serialized()
        #expect(bytes.first == 1)
        #expect((bytes.count - 1) % 3 == 0 && bytes.count < 1 + 3 * 600)
        let read = try #require(HyperLogLog(serialized: bytes))
        #expect(read == sketch)
        #expect(abs(sketch.estimate - 600) / 600 <= 0.05)
        // A small sketch merged into a whole one, and the other way, count the same instances.
        var merged = sparse
        merged.merge(sketch)
        #expect(merged == sketch)
        var other = sketch
        other.merge(sparse)
        #expect(other == sketch)
    }

    @Test("Versions: labels, newest-first order, (other) and (invalid) last")
    func versionLabels() {
        #expect(InsightVersion.label("2.3.0") == "2.3.0")
        #expect(InsightVersion.label("2.x") == "(invalid)")
        #expect(InsightVersion.label(nil) == "(invalid)")
        #expect(InsightVersion.label(String(repeating: "1.", count: 40) + "1") == "(invalid)")
        let sorted = ["(invalid)", "2.2.1", "(other)", "10.0", "2.3.0"].sorted(by: InsightVersion.newestFirst)
        #expect(sorted == ["10.0", "2.3.0", "2.2.1", "(other)", "(invalid)"])
    }

    @Test("Counts keep at most 200 versions per platform, whatever callers send")
    func boundedVersions() {
        var counts = InsightCounts()
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<30_000 {
            let version = "\(generator.next() % 1000).\(generator.next() % 1000).\(generator.next() % 1000)"
            counts.record(platform: .ios, version: version, hash: generator.next(), tally: .empty)
            counts.record(platform: nil, version: "garbage \(generator.next())", hash: generator.next(), tally: .empty)
        }
        let ios = counts.versions.filter { $0.key.platform == "IOS" }
        #expect(ios.count == 201)
        #expect(ios[.init(platform: "IOS", version: "(other)")]!.answers == 30_000 - 200)
        #expect(counts.versions.filter { $0.key.platform == "UNKNOWN" }.count == 1)
        #expect(counts.versions.values.reduce(0) { $0 + $1.answers } == 60_000)
        var merged = InsightCounts()
        merged.merge(counts)
        merged.merge(counts)
        #expect(merged.versions.count == 202)
        #expect(merged.versions.values.reduce(0) { $0 + $1.answers } == 120_000)
    }

    @Test("A caller sending a reserved label as its version counts as invalid, after versions filled up")
    func reservedLabelsAreNotVersions() {
        var counts = InsightCounts()
        let spread: UInt64 = 0x9E37_79B9_7F4A_7C15  // distinct instances land in distinct registers
        for minor in 0..<201 {
            counts.record(platform: .ios, version: "1.\(minor)", hash: UInt64(minor + 1) &* spread, tally: .empty)
        }
        // `(other)` now exists (the 201st version), and a version seen before is counted without parsing it again.
        counts.record(platform: .ios, version: "(other)", hash: 900, tally: .empty)
        counts.record(platform: .ios, version: "(invalid)", hash: 901, tally: .empty)
        counts.record(platform: .ios, version: "1.7", hash: 902 &* spread, tally: .empty)
        #expect(counts.versions[.init(platform: "IOS", version: "(other)")]?.answers == 1)
        #expect(counts.versions[.init(platform: "IOS", version: "(invalid)")]?.answers == 2)
        #expect(counts.versions[.init(platform: "IOS", version: "1.7")]?.answers == 2)
        #expect(counts.versions[.init(platform: "IOS", version: "1.7")]?.instances.estimate ?? 0 >= 1.5)
    }

    @Test("A tally's sources are each parameter's outcome, a condition that chose the in-app default included")
    func tallySourcesAreTheOutcomes() throws {
        let template = try RemoteConfigTemplate(
            json: #"""
                {"conditions": [{"name": "ios", "expression": "device.os == 'ios'"},
                                {"name": "old", "expression": "app.version.<(['2.0'])"}],
                 "parameters": {"force": {"defaultValue": {"value": "false"},
                                          "conditionalValues": {"old": {"value": "true"}}},
                                "tip": {"defaultValue": {"value": "hello"},
                                        "conditionalValues": {"ios": {"useInAppDefault": true}}},
                                "quiet": {"defaultValue": {"useInAppDefault": true}}}}
                """#.utf8)
        let compiled = try CompiledTemplate(template)
        for (platform, version) in [(Platform.ios, "1.0"), (.android, "3.0"), (.ios, "3.0"), (.web, "1.5")] {
            let signature = compiled.signature(
                for: FetchContext(appInstanceId: "a", platform: platform, appVersion: version))
            let expected = compiled.outcomes(signature).map { outcome in
                AnswerTally.Source(
                    parameter: outcome.key, source: outcome.condition == nil ? outcome.source : .condition,
                    condition: outcome.condition)
            }
            let tally = compiled.tally(signature)
            #expect(tally.sources == expected)
            var matched: [String] = []
            if platform == .ios { matched.append("ios") }
            if version == "1.0" || version == "1.5" { matched.append("old") }
            #expect(tally.matchedConditions == matched)
        }
    }

    @Test("Answers count per parameter source and matched condition, per signature")
    func answerSources() throws {
        let template = try RemoteConfigTemplate(
            json: #"""
                {"conditions": [{"name": "ios", "expression": "device.os == 'ios'"}],
                 "parameters": {"force": {"defaultValue": {"value": "false"},
                                          "conditionalValues": {"ios": {"value": "true"}}},
                                "tip": {"defaultValue": {"useInAppDefault": true}}}}
                """#.utf8)
        let compiled = try CompiledTemplate(template)
        let ios = compiled.tally(compiled.signature(for: FetchContext(appInstanceId: "a", platform: .ios)))
        let web = compiled.tally(compiled.signature(for: FetchContext(appInstanceId: "b", platform: .web)))
        var counts = InsightCounts()
        for _ in 0..<3 { counts.record(platform: .ios, version: "1.0", hash: 1, tally: ios) }
        counts.record(platform: .web, version: "1.0", hash: 2, tally: web)
        counts.record(platform: .ios, version: "1.0", hash: 1, tally: ios, position: 0)
        let sources = counts.sources
        #expect(sources[.init(parameter: "force", source: "CONDITION", condition: "ios")] == 4)
        #expect(sources[.init(parameter: "force", source: "DEFAULT", condition: "")] == 1)
        #expect(sources[.init(parameter: "tip", source: "IN_APP_DEFAULT", condition: "")] == 4)
        #expect(sources[.init(parameter: nil, source: "", condition: "ios")] == 4)
        #expect(counts.versions[.init(platform: "IOS", version: "1.0")]?.instances.count == 1)
    }

    @Test("Counting by position adds up to every answer's own sources, past the distinct-answer limit")
    func positionalCountsMatchTheSources() throws {
        let template = try RemoteConfigTemplate(
            json: #"""
                {"conditions": [{"name": "ios", "expression": "device.os == 'ios'"},
                                {"name": "old", "expression": "app.version.<(['1.2'])"},
                                {"name": "half", "expression": "percent <= 50"},
                                {"name": "unused", "expression": "percent <= 10"}],
                 "parameters": {"force": {"defaultValue": {"value": "false"},
                                          "conditionalValues": {"old": {"value": "true"}}},
                                "tip": {"defaultValue": {"value": "a"},
                                        "conditionalValues": {"half": {"useInAppDefault": true},
                                                              "ios": {"value": "b"}}},
                                "quiet": {"defaultValue": {"useInAppDefault": true}},
                                "color": {"defaultValue": {"value": "red"},
                                          "conditionalValues": {"ios": {"value": "blue"}, "half": {"value": "green"},
                                                                "old": {"value": "grey"}}}}}
                """#.utf8)
        let compiled = try CompiledTemplate(template)
        let listed = AnswerTally(
            sources: [.init(parameter: "listed", source: .defaultValue, condition: nil)], matchedConditions: ["ios"])
        var counts = InsightCounts()
        var expected: [InsightCounts.SourceKey: Int] = [:]
        var made: [MatchSignature: AnswerTally] = [:]
        var generator = SeededGenerator(seed: 21)
        for call in 0..<12_000 {
            let context = FetchContext(
                appInstanceId: "i\(generator.next())", platform: call % 3 == 0 ? .ios : .android,
                appVersion: "1.\(generator.next() % 4)")
            let signature = compiled.signature(for: context)
            // Half the answers made anew (distinct tallies beyond the limit), half remembered (counted again).
            var tally = call % 2 == 0 ? compiled.tally(signature) : made[signature] ?? compiled.tally(signature)
            made[signature] = tally
            if call % 97 == 0 { tally = listed }
            // Every fourth call an OFREP single flag, one past the last parameter included.
            let position: Int? = call % 4 == 1 ? Int(generator.next() % 5) : nil
            counts.record(
                platform: context.platform, version: context.appVersion, hash: generator.next(), tally: tally,
                position: position)
            let sources = position.map { tally.source(at: $0).map { [$0] } ?? [] } ?? tally.sources
            for source in sources {
                let key = InsightCounts.SourceKey(
                    parameter: source.parameter, source: source.source.rawValue, condition: source.condition ?? "")
                expected[key, default: 0] += 1
            }
            for condition in tally.matchedConditions {
                expected[InsightCounts.SourceKey(parameter: nil, source: "", condition: condition), default: 0] += 1
            }
        }
        #expect(expected.count > 10)
        #expect(counts.sources == expected)
        var merged = InsightCounts()
        merged.merge(counts)
        merged.merge(counts)
        #expect(merged.sources == expected.mapValues { 2 * $0 })
    }

    @Test("Counting by position holds past 64 conditions, where a signature is more than one word")
    func positionalCountsPastSixtyFourConditions() throws {
        // 70 conditions on percent ranges, each deciding its own parameter, and one parameter with all of them.
        func value(_ text: String) -> JSONValue { .object(["value": .string(text)]) }
        var conditions: [JSONValue] = []
        var parameters = JSONObject()
        var every = JSONObject()
        for index in 0..<70 {
            conditions.append(
                .object(["name": .string("c\(index)"), "expression": .string("percent <= \(index + 1)")]))
            parameters["p\(index)"] = .object([
                "defaultValue": value("d"), "conditionalValues": .object(["c\(index)": value("v")]),
            ])
            every["c\(index)"] = value("\(index)")
        }
        parameters["every"] = .object(["defaultValue": value("none"), "conditionalValues": .object(every)])
        let template = JSONValue.object(["conditions": .array(conditions), "parameters": .object(parameters)])
        let json = Data(template.jsonBytes())
        let compiled = try CompiledTemplate(try RemoteConfigTemplate(json: json))
        var counts = InsightCounts()
        var expected: [InsightCounts.SourceKey: Int] = [:]
        for call in 0..<500 {
            let tally = compiled.tally(compiled.signature(for: FetchContext(appInstanceId: "i\(call)")))
            counts.record(platform: nil, version: nil, hash: UInt64(call), tally: tally)
            for source in tally.sources {
                let key = InsightCounts.SourceKey(
                    parameter: source.parameter, source: source.source.rawValue, condition: source.condition ?? "")
                expected[key, default: 0] += 1
            }
            for condition in tally.matchedConditions {
                expected[InsightCounts.SourceKey(parameter: nil, source: "", condition: condition), default: 0] += 1
            }
        }
        #expect(expected.keys.contains { $0.condition == "c69" && $0.parameter == nil })
        #expect(counts.sources == expected)
    }

    @Test("The bottom-k sample keeps the k smallest distinct instances with their last context")
    func bottomK() {
        var sample = BottomKSample<String>(capacity: 100)
        let hashes = Self.hashes(10_000, seed: 5).map { Int64(bitPattern: $0) }
        for (index, key) in hashes.enumerated() { sample.offer(key: key, context: "first \(index)") }
        for (index, key) in hashes.enumerated() { sample.offer(key: key, context: "second \(index)") }
        sample.trim()
        let smallest = Set(hashes.sorted().prefix(100))
        #expect(Set(sample.entries.keys) == smallest)
        #expect(sample.entries.values.allSatisfy { $0.hasPrefix("second") })
        var other = BottomKSample<String>(capacity: 100)
        other.offer(key: .min, context: "newest")
        other.merge(sample)
        #expect(other.entries.count == 100)
        #expect(other.entries[.min] == "newest")
    }
    @Test("An emptied sample refills only with instances that can still be among the smallest")
    func emptiedKeepsTheThreshold() {
        var sample = BottomKSample<String>(capacity: 100)
        let hashes = Self.hashes(10_000, seed: 7).map { Int64(bitPattern: $0) }
        for key in hashes { sample.offer(key: key, context: "seen") }
        sample.trim()
        // The next interval: the same fleet fetches again, and a new one arrives.
        var next = sample.emptied()
        for key in hashes + Self.hashes(10_000, seed: 8).map({ Int64(bitPattern: $0) }) {
            next.offer(key: key, context: "again")
        }
        // Nothing above the first interval's 100th smallest was held; the union's smallest are all there.
        #expect(next.entries.count <= 200)
        next.trim()
        let union = Set((hashes + Self.hashes(10_000, seed: 8).map { Int64(bitPattern: $0) }).sorted().prefix(100))
        #expect(Set(next.entries.keys) == union)
    }

    @Test("A sample that adopts a merged sample's bound holds less and merges to the same sample")
    func adoptedBoundKeepsTheMergedSample() {
        let first = Self.hashes(5_000, seed: 11).map { Int64(bitPattern: $0) }
        let second = Self.hashes(5_000, seed: 12).map { Int64(bitPattern: $0) }
        // One loop's sample, full and merged (as stored); the other loop goes on alone or with its bound.
        var stored = BottomKSample<String>(capacity: 100)
        for key in first { stored.offer(key: key, context: "first") }
        stored.trim()
        let bound = stored.cutoff
        var alone = BottomKSample<String>(capacity: 100)
        var bounded = BottomKSample<String>(capacity: 100)
        bounded.offer(key: bound + 1, context: "held before")
        bounded.adopt(threshold: bound)
        #expect(bounded.cutoff == bound)
        #expect(bounded.entries.isEmpty)
        for key in second {
            alone.offer(key: key, context: "second")
            bounded.offer(key: key, context: "second")
        }
        #expect(bounded.entries.keys.allSatisfy { $0 <= bound })
        #expect(bounded.entries.count < alone.entries.count)
        var withAlone = stored
        withAlone.merge(alone)
        var withBounded = stored
        withBounded.merge(bounded)
        #expect(Set(withBounded.entries.keys) == Set(withAlone.entries.keys))
        #expect(Set(withBounded.entries.keys) == Set((first + second).sorted().prefix(100)))
        // A higher bound (the stored sample lost instances to the retention) lets the keys it turned away in.
        bounded.adopt(threshold: .max)
        #expect(bounded.cutoff == .max)
        bounded.offer(key: bound + 1, context: "after")
        #expect(bounded.entries[bound + 1] == "after")
    }
}
