// TailMatchTests.swift — a domain table's T matched against a URL (DomainTable.tailMatches), its
// one-byte codes read eight at a time, held to T read a code at a time: on random T of every kind
// of code, placed anywhere in a buffer, and URLs cut, changed and started at each place.

import Testing
@testable import Search
import TestSupport

/// T's meaning read a code at a time (the file's layout, DomainTable.swift).
private func matchesByCodes(_ tail: [UInt8], _ url: UnsafeBufferPointer<UInt8>, from start: Int) -> Bool {
    var at = 0
    var place = start
    while at < tail.count {
        let code = tail[at]
        if code == DomainTable.restCode {
            guard place <= url.count, place == start || url[place - 1] != 0 else { return true }
            for byte in url[place...] {
                if byte == 0 { return true }
                if byte >= 128 { return false }
            }
            return true
        }
        guard place <= url.count else { return false }
        let byte = place < url.count ? url[place] : 0
        let matches: Bool
        switch code {
        case 0:
            matches = byte < 128 && tail[at + 1 + Int(byte >> 3)] >> (byte & 7) & 1 == 1
            at += 16
        case 0x80: matches = byte == 0x2F || byte == 0x3A
        case DomainTable.splitCode: matches = true
        case 0x81...: matches = byte == code & 0x7F
        default: matches = byte != 0 && (byte &- 0x41 < 26 ? byte | 0x20 : byte) == code
        }
        guard matches else { return false }
        at += 1
        place += 1
    }
    return true
}

/// A random T: codes of single bytes (letters in both cases, digits, punctuation), `[/:]`, letters
/// alone, classes; maybe the split code first and the rest's code last.
private func randomTail(_ random: inout SplitMix64) -> [UInt8] {
    var tail: [UInt8] = random.next() % 6 == 0 ? [DomainTable.splitCode] : []
    let singles = Array("abcdefghijklmnopqrstuvwxyz0123456789/-._%=?&@[`{~".utf8) + [0x01, 0x7F]
    for _ in 0..<(1 + Int(random.next() % 20)) {
        switch random.next() % 10 {
        case 0: tail.append(0x80)
        case 1: tail.append(0x80 | UInt8(ascii: "a") + UInt8(random.next() % 3))
        case 2:
            tail.append(0)
            let members = (0..<16).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            // (Not empty: `x` a member.)
            tail += members.enumerated().map { $0.offset == 15 ? $0.element | 1 : $0.element }
        default: tail.append(singles[Int(random.next() % UInt64(singles.count))])
        }
    }
    if random.next() % 4 == 0 { tail.append(DomainTable.restCode) }
    return tail
}

@Suite struct TailMatchTests {
    /// T placed anywhere in a buffer of other bytes (read past its end or not loadable as a
    /// word), against URLs that start T at each place mod 8 and whose bytes are cut, or changed
    /// to NUL, to bytes from 128 on, to a letter's other case, at each place; with and without
    /// bytes after them.
    @Test func wordsOfCodesAnswerAsCodesOneAtATime() {
        var random = SplitMix64(seed: 72)
        var asked = 0, matched = 0
        for _ in 0..<600 {
            let tail = randomTail(&random)
            let before = (0..<Int(random.next() % 10)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let after = (0..<Int(random.next() % 10)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let tails = before + tail + after
            let path = text(of: tail[...], &random)
            let start = Int(random.next() % 9)
            let host = Array(Array("https://example.com".utf8).suffix(start))
            var urls: [[UInt8]] = []
            for cut in 0...path.count {
                urls.append(host + Array(path[..<cut]))
                urls.append(host + Array(path[..<cut]) + [0, 0x61])
                urls.append(host + Array(path[..<cut]) + [0xC3, 0xA9])
                for place in 0..<cut {
                    for byte: UInt8 in [0, 0x80, 0xC1, 0xFF, 0x40, 0x5B, 0x60, 0x7B, path[place] ^ 0x20, path[place] ^ 0x80] {
                        var changed = Array(path[..<cut])
                        changed[place] = byte
                        urls.append(host + changed)
                        urls.append(host + changed + Array("/q".utf8))
                    }
                }
            }
            tails.withUnsafeBufferPointer { tails in
                for url in urls {
                    url.withUnsafeBufferPointer { url in
                        let expected = matchesByCodes(tail, url, from: start)
                        let range = before.count..<before.count + tail.count
                        #expect(DomainTable.tailMatches(tails, range, url, from: start) == expected, "T \(tail) URL \(Array(url)) from \(start)")
                        #expect(DomainTable.tailMatches(tail[...], url, from: start) == expected, "T \(tail) URL \(Array(url)) from \(start)")
                        asked += 1
                        matched += expected ? 1 : 0
                    }
                }
            }
        }
        #expect(matched > 1000 && asked - matched > 1000, "both answers met")
    }

    /// The word step's own cases: a run cut by a code of another kind, by T's end, by the URL's
    /// end (within the last word or short of eight bytes), a byte whose fold would carry.
    @Test func aRunOfCodesStopsWhereItsCodesOrTheURLStop() {
        let tail = Array("/ads/preferences/".utf8) + [0x80, UInt8(ascii: "x")]
        let cases: [(String, Bool)] = [
            ("/ads/preferences/:x", true), ("/ADS/Preferences//X", true), ("/ads/measurement/", false), ("/ads/preferences", false),
            ("/ads/preferences/", false), ("/ads/pre", false), ("/ads/preferenceS/?x", false), ("/ads/preferences/:xyz", true),
        ]
        for (text, expected) in cases {
            Array(text.utf8).withUnsafeBufferPointer { url in
                #expect(DomainTable.tailMatches(tail[...], url, from: 0) == expected, "\(text)")
                #expect(matchesByCodes(tail, url, from: 0) == expected, "\(text)")
            }
        }
        // A byte from 128 on whose fold carries into the next byte, in the run and after it.
        let run = Array("/a@bc".utf8)
        for url: [UInt8] in [[0x2F, 0xC1, 0x40, 0x62, 0x63], [0x2F, 0x61, 0x40, 0x62, 0x63, 0xC1, 0x40], [0x2F, 0x61, 0xC1, 0x40, 0x63]] {
            url.withUnsafeBufferPointer { url in
                #expect(DomainTable.tailMatches(run[...], url, from: 0) == matchesByCodes(run, url, from: 0), "\(Array(url))")
            }
        }
    }
}
