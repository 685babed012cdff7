// ModuleMapTests.swift — docs/DESIGN.md's module table lists every non-test target of
// Package.swift with exactly its dependencies (issue #54). Package.swift is read as text (its
// `.target(`, `.executableTarget(` and `.systemLibrary(` calls), so no `swift package` runs.

import Foundation
import Testing
import TestSupport

@Suite struct ModuleMapTests {
    /// Each target of Package.swift but the test targets, with the names in its `dependencies:`
    /// (a `.product(name:package:)` by its name).
    static func packageTargets() throws -> [String: Set<String>] {
        let text = try String(contentsOf: repositoryURL("Package.swift"), encoding: .utf8)
        var targets: [String: Set<String>] = [:]
        let bytes = Array(text.utf8)
        for kind in [".target(", ".executableTarget(", ".systemLibrary("] {
            var from = text.startIndex
            while let found = text.range(of: kind, range: from ..< text.endIndex) {
                // The call's text: to its closing parenthesis (strings hold no parentheses here).
                var depth = 0
                var end = text.utf8.distance(from: text.startIndex, to: found.upperBound) - 1
                repeat {
                    if bytes[end] == UInt8(ascii: "(") { depth += 1 }
                    if bytes[end] == UInt8(ascii: ")") { depth -= 1 }
                    end += 1
                } while depth > 0
                let call = String(decoding: bytes[text.utf8.distance(from: text.startIndex, to: found.lowerBound) ..< end], as: UTF8.self)
                from = found.upperBound
                guard let name = call.firstMatch(of: /name:\s*"([^"]+)"/)?.1 else { continue }
                var dependencies: Set<String> = []
                if let list = call.firstMatch(of: /dependencies:\s*\[([^\]]*)\]/)?.1 {
                    var rest = String(list)
                    for product in rest.matches(of: /\.product\(name:\s*"([^"]+)"[^)]*\)/) {
                        dependencies.insert(String(product.1))
                    }
                    rest.replace(/\.product\([^)]*\)/, with: "")
                    for target in rest.matches(of: /"([^"]+)"/) { dependencies.insert(String(target.1)) }
                }
                targets[String(name)] = dependencies
            }
        }
        return targets
    }

    /// DESIGN.md's module table: each row's module and the backquoted names of its last column.
    static func designTable() throws -> [String: Set<String>] {
        let text = try String(contentsOf: repositoryURL("docs/DESIGN.md"), encoding: .utf8)
        guard let start = text.range(of: "\n## Modules\n") else { return [:] }
        var rows: [String: Set<String>] = [:]
        for line in text[start.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            guard line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 6, let name = cells[1].firstMatch(of: /`([^`]+)`/)?.1 else { continue }
            let dependencies = cells[cells.count - 2].matches(of: /`([^`]+)`/).map { String($0.1) }
            rows[String(name)] = Set(dependencies)
        }
        return rows
    }

    @Test func packageSwiftIsReadWhole() throws {
        let targets = try Self.packageTargets()
        // Spot checks that the reader finds calls over several lines and products.
        #expect(targets["Benchmarks"]?.contains("Histogram") == true)
        #expect(targets["RequestContext"] == ["ContentRuleList", "CLibPSL", "URLStandard"])
        #expect(targets["CZlib"] == [])
        #expect(targets["TestSupport"] == ["SeededRandom"])
        #expect(targets.keys.contains("URLFilterSyntaxTests") == false)
    }

    @Test func designModuleMapMatchesPackageSwift() throws {
        let package = try Self.packageTargets()
        let design = try Self.designTable()
        #expect(!package.isEmpty && !design.isEmpty)
        for name in package.keys.sorted() {
            #expect(design[name] != nil, "docs/DESIGN.md's module table has no row for target \(name)")
        }
        for name in design.keys.sorted() {
            #expect(package[name] != nil, "docs/DESIGN.md's module table has \(name), which Package.swift does not")
        }
        for (name, dependencies) in package.sorted(by: { $0.key < $1.key }) {
            guard let listed = design[name] else { continue }
            #expect(listed == dependencies, "\(name): DESIGN.md lists \(listed.sorted()), Package.swift has \(dependencies.sorted())")
        }
    }
}
