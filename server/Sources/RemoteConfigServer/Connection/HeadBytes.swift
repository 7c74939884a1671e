/// A run of a request head's bytes, as the byte-level readers take them: an `ArraySlice` (a copy, as the
/// router's fields and the tests have them) or a slice of the connection's own buffer, read where it lies.
protocol HeadBytes: RandomAccessCollection where Element == UInt8, Index == Int, SubSequence == Self {}
