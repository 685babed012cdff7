// ShippedPatterns.swift — TestSupport: every pattern of the shipped Safari lists, for tests that
// hold two ways of reading or building patterns to each other on real input.

public import Foundation

/// Every url-filter and top/frame-URL pattern of the shipped Safari lists (in file, then rule
/// order), with its case sensitivity.
public func shippedPatterns() throws -> [(source: String, isCaseSensitive: Bool)] {
    var patterns: [(String, Bool)] = []
    for file in ["easylist.adguard-safari26.json.gz", "easyprivacy.adguard-safari16_4.json.gz", "kablock-blockerList.json", "ddg-tds-reference-rules.json"] {
        let path = repositoryRoot + "/Corpora/rules/" + file
        let data: Data
        if file.hasSuffix(".gz") {
            let gzip = Process()
            gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
            gzip.arguments = ["-dc", path]
            let pipe = Pipe()
            gzip.standardOutput = pipe
            try gzip.run()
            data = pipe.fileHandleForReading.readDataToEndOfFile()
            gzip.waitUntilExit()
        } else {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        guard let rules = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path])
        }
        for rule in rules {
            guard let trigger = rule["trigger"] as? [String: Any] else { continue }
            let isCaseSensitive = trigger["url-filter-is-case-sensitive"] as? Bool ?? false
            if let filter = trigger["url-filter"] as? String { patterns.append((filter, isCaseSensitive)) }
            for key in ["if-top-url", "unless-top-url", "if-frame-url", "unless-frame-url"] {
                for pattern in trigger[key] as? [String] ?? [] { patterns.append((pattern, false)) }
            }
        }
    }
    return patterns
}
