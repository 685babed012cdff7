// RepositoryRoot.swift — TestSupport: what the test targets share. The tests read the shipped
// corpora, benchmark definitions and fixtures where they are in the repository, found from this
// file's own place in it (Tests/TestSupport/RepositoryRoot.swift), whatever the working directory.

public import Foundation

/// The repository's root folder: the one that holds Package.swift, Corpora/ and Benchmarks/.
public let repositoryRoot: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // Tests/TestSupport
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // the root
    .path

/// A file or folder of the repository, by its path from the root: `repositoryURL("Corpora/manifest.json")`.
public func repositoryURL(_ relativePath: String) -> URL {
    URL(fileURLWithPath: repositoryRoot).appendingPathComponent(relativePath)
}
