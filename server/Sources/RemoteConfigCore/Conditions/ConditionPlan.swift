/// Conditions laid out flat for evaluation: nodes are plain integers and atoms sit in one array, so
/// evaluating a caller walks arrays without reference counting. The tree of `CompiledNode`s, evaluated
/// directly, retained and released every boxed node and operand list it visited (about a third of the
/// time a new device's conditions took).
///
/// Atoms are read through unretained references (`Atom`), which the plan's own strong ones keep alive: an
/// atom read out of an array was retained and released around each evaluation, and as every event loop
/// reads the same atoms, each count was a cache line moved between cores (15% of a fetch at 2,000
/// conditions, against 4% for the atoms' own work).
struct ConditionPlan: Sendable {
    struct Node: Sendable {
        enum Kind: UInt8, Sendable {
            case constantFalse, constantTrue, atom, not, and, or
        }

        var kind: Kind
        /// `atom`: its index in `atoms`; `not`: its operand's node; `and`, `or`: the first operand's index
        /// in `operands`.
        var first: Int32 = 0
        /// `and`, `or`: how many operands.
        var count: Int32 = 0
    }

    /// One atom, in a box the plan keeps alive.
    private final class Atom: Sendable {
        let atom: CompiledAtom
        init(_ atom: CompiledAtom) { self.atom = atom }
    }

    private var nodes: [Node] = []
    private var operands: [Int32] = []
    /// The atoms, owned; `atomReferences` names the same boxes without counting.
    private var atoms: [Atom] = []
    private var atomReferences: [Unmanaged<Atom>] = []
    /// The root node of each condition, in the order given.
    private var roots: [Int32] = []

    /// The plan of these conditions; `evaluate` answers for them in this order.
    init(_ trees: [CompiledNode]) {
        for tree in trees { roots.append(add(tree)) }
    }

    private mutating func add(_ tree: CompiledNode) -> Int32 {
        let node: Node
        switch tree {
        case .constant(let flag): node = Node(kind: flag ? .constantTrue : .constantFalse)
        case .atom(let atom):
            let box = Atom(atom)
            atoms.append(box)
            atomReferences.append(Unmanaged.passUnretained(box))
            node = Node(kind: .atom, first: Int32(atoms.count - 1))
        case .not(let operand): node = Node(kind: .not, first: add(operand))
        case .and(let list), .or(let list):
            // Operands first (each may add its own), then their indices side by side.
            let indices = list.map { add($0) }
            let first = Int32(operands.count)
            operands.append(contentsOf: indices)
            if case .and = tree {
                node = Node(kind: .and, first: first, count: Int32(indices.count))
            } else {
                node = Node(kind: .or, first: first, count: Int32(indices.count))
            }
        }
        nodes.append(node)
        return Int32(nodes.count - 1)
    }

    /// Sets bit `i` of `signature` for each condition `i` that is true for the caller of `scratch`.
    func evaluate(into signature: inout MatchSignature, _ scratch: inout EvaluationScratch) {
        nodes.withUnsafeBufferPointer { nodes in
            operands.withUnsafeBufferPointer { operands in
                atomReferences.withUnsafeBufferPointer { atoms in
                    let walker = Walker(nodes: nodes, operands: operands, atoms: atoms)
                    for (bit, root) in roots.enumerated() where walker.evaluate(root, &scratch) == .true {
                        signature.set(bit)
                    }
                }
            }
        }
    }

    /// Three-valued and short-circuiting, as `CompiledNode.evaluate`: `false && x` and `true || x` do not
    /// evaluate `x`.
    private struct Walker {
        let nodes: UnsafeBufferPointer<Node>
        let operands: UnsafeBufferPointer<Int32>
        let atoms: UnsafeBufferPointer<Unmanaged<Atom>>

        func evaluate(_ index: Int32, _ scratch: inout EvaluationScratch) -> ConditionTruth {
            let node = nodes[Int(index)]
            switch node.kind {
            case .constantFalse: return .false
            case .constantTrue: return .true
            case .atom:
                // Guaranteed by the plan, which owns every atom for as long as a walker runs.
                return atoms[Int(node.first)]._withUnsafeGuaranteedRef { $0.atom.evaluate(&scratch) }
            case .not:
                switch evaluate(node.first, &scratch) {
                case .true: return .false
                case .false: return .true
                case .unknown: return .unknown
                }
            case .and:
                var sawUnknown = false
                for position in Int(node.first)..<Int(node.first + node.count) {
                    switch evaluate(operands[position], &scratch) {
                    case .false: return .false
                    case .unknown: sawUnknown = true
                    case .true: break
                    }
                }
                return sawUnknown ? .unknown : .true
            case .or:
                var sawUnknown = false
                for position in Int(node.first)..<Int(node.first + node.count) {
                    switch evaluate(operands[position], &scratch) {
                    case .true: return .true
                    case .unknown: sawUnknown = true
                    case .false: break
                    }
                }
                return sawUnknown ? .unknown : .false
            }
        }
    }
}
