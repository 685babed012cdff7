// SeededGenerator.swift — TestSupport: the tests that generate their cases draw them from the
// package's one seeded generator (SeededRandom's SplitMix64), so every run of a test sees the same
// cases; every test target that imports TestSupport sees it.

@_exported public import SeededRandom
