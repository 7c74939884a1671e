/// Interns `percent` seeds so a request hashes each distinct seed at most once.
struct SeedTable {
    var seeds: [String] = []

    mutating func index(of seed: String) -> Int {
        if let index = seeds.firstIndex(of: seed) { return index }
        seeds.append(seed)
        return seeds.count - 1
    }
}
