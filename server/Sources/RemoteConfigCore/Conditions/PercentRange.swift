import Foundation

/// How a `percent` atom bounds the caller's bucket, in percent (0...100, decimals allowed).
public enum PercentRange: Sendable, Hashable {
    /// `percent <op> N` with `<`, `<=`, `>` or `>=`.
    case compare(ComparisonOperator, Double)
    /// `percent between low and high`: low exclusive, high inclusive.
    case between(Double, Double)
}
