// ShippedPatterns.swift — TestSupport: every pattern, condition domain and selector of the
// shipped Safari lists, for tests that hold two ways of reading or building them to each other on
// real input.

internal import Foundation

/// The shipped Safari lists, in Corpora/rules.
private let shippedSafariLists = ["easylist.adguard-safari26.json.gz", "easyprivacy.adguard-safari16_4.json.gz", "kablock-blockerList.json", "ddg-tds-reference-rules.json"]

/// Every url-filter and top/frame-URL pattern of the shipped Safari lists (in file, then rule
/// order), with its case sensitivity.
public func shippedPatterns() throws -> [(source: String, isCaseSensitive: Bool)] {
    var patterns: [(String, Bool)] = []
    for file in shippedSafariLists {
        let rules = try shippedRules(file)
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

/// Every domain of the shipped Safari lists' `if-domain` and `unless-domain` conditions, lower
/// case (as the rule-list parser keeps them), in file, then rule order.
public func shippedConditionDomains() throws -> [String] {
    var domains: [String] = []
    for file in shippedSafariLists {
        for rule in try shippedRules(file) {
            guard let trigger = rule["trigger"] as? [String: Any] else { continue }
            for key in ["if-domain", "unless-domain"] {
                for domain in trigger[key] as? [String] ?? [] { domains.append(domain.lowercased()) }
            }
        }
    }
    return domains
}

/// Every css-display-none selector of the shipped Safari lists, in file, then rule order.
public func shippedSelectors() throws -> [String] {
    var selectors: [String] = []
    for file in shippedSafariLists {
        for rule in try shippedRules(file) {
            guard let action = rule["action"] as? [String: Any], action["type"] as? String == "css-display-none" else { continue }
            if let selector = action["selector"] as? String { selectors.append(selector) }
        }
    }
    return selectors
}

/// The rules of a shipped list as JSON objects.
private func shippedRules(_ file: String) throws -> [[String: Any]] {
    guard let rules = try JSONSerialization.jsonObject(with: try shippedListData(file)) as? [[String: Any]] else {
        throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: file])
    }
    return rules
}

/// The text of every shipped Safari list, in the order of `shippedPatterns`.
public func shippedListTexts() throws -> [(file: String, bytes: [UInt8])] {
    try shippedSafariLists.map { ($0, [UInt8](try shippedListData($0))) }
}

/// The text of the shipped list `file` (under Corpora/rules), unzipped.
private func shippedListData(_ file: String) throws -> Data {
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
    return data
}
