// Host.swift — URLStandard
//
// The WHATWG URL Standard's host parser, as far as deciding whether a host parses: IPv6 addresses
// in brackets, opaque hosts of non-special URLs, and domains of special URLs (percent-decoded,
// through IDNA, checked for forbidden code points, and read as IPv4 addresses when their last
// label is a number).
// Tested by URLStandardTests (URLValidityTests).

public enum Host {
    /// Whether the host parser accepts `input` (non-empty). `isOpaque` for the hosts of
    /// non-special URLs.
    public static func parses(_ input: [UInt8], isOpaque: Bool) -> Bool {
        if input.first == UInt8(ascii: "[") {
            guard input.count >= 2, input.last == UInt8(ascii: "]") else { return false }
            return IPv6.parses(input[1..<(input.count - 1)])
        }
        if isOpaque { return !input.contains(where: isForbiddenHostCodePoint) }
        let domain = percentDecoded(input)
        guard let ascii = domainToASCII(domain) else { return false }
        if ascii.contains(where: isForbiddenDomainCodePoint) { return false }
        if IPv4.endsInANumber(ascii) { return IPv4.parses(ascii) }
        return true
    }

    /// The WHATWG "domain to ASCII" with beStrict false: ASCII domains without an `xn--` label are
    /// only lower-cased; others go through IDNA (UTS #46 non-transitional, via libidn2).
    static func domainToASCII(_ domain: [UInt8]) -> [UInt8]? {
        let labels = domain.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        let hasPunycodeLabel = labels.contains { label in
            label.count >= 4 && label.prefix(4).map(URLValidity.lowercased) == Array("xn--".utf8)
        }
        if domain.allSatisfy({ $0 < 0x80 }) && !hasPunycodeLabel { return domain.map(URLValidity.lowercased) }
        guard let ascii = IDNA.toASCII(String(decoding: domain, as: UTF8.self)), !ascii.isEmpty else { return nil }
        return Array(ascii.utf8)
    }

    static func percentDecoded(_ input: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
                let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(input[index])
                index += 1
            }
        }
        return output
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// NUL, tab, LF, CR, space, `#`, `/`, `:`, `<`, `>`, `?`, `@`, `[`, `\`, `]`, `^`, `|`.
    static func isForbiddenHostCodePoint(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x00, 0x09, 0x0A, 0x0D, 0x20: true
        case UInt8(ascii: "#"), UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "?"),
            UInt8(ascii: "@"), UInt8(ascii: "["), UInt8(ascii: "\\"), UInt8(ascii: "]"), UInt8(ascii: "^"), UInt8(ascii: "|"):
            true
        default: false
        }
    }

    /// The forbidden host code points, every C0 control, `%` and DEL.
    static func isForbiddenDomainCodePoint(_ byte: UInt8) -> Bool {
        isForbiddenHostCodePoint(byte) || byte <= 0x1F || byte == UInt8(ascii: "%") || byte == 0x7F
    }
}

/// The standard's IPv4 parser and its "ends in a number" test.
public enum IPv4 {
    /// Whether the last label (ignoring one trailing empty label) is a number: only digits, or
    /// anything the IPv4 number parser accepts (`0x1f`, `0x`).
    public static func endsInANumber(_ input: [UInt8]) -> Bool {
        var parts = input.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.last?.isEmpty == true {
            if parts.count == 1 { return false }
            parts.removeLast()
        }
        guard let last = parts.last else { return false }
        if !last.isEmpty && last.allSatisfy(URLValidity.isASCIIDigit) { return true }
        return number(last) != nil
    }

    /// Whether the IPv4 parser accepts `input`: at most four numbers (one trailing dot allowed),
    /// each but the last at most 255, the last filling the bytes left.
    public static func parses(_ input: [UInt8]) -> Bool {
        var parts = input.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        if parts.last?.isEmpty == true && parts.count > 1 { parts.removeLast() }
        guard parts.count <= 4 else { return false }
        var numbers: [UInt64] = []
        for part in parts {
            guard let value = number(part) else { return false }
            numbers.append(value)
        }
        guard let last = numbers.last else { return false }
        if numbers.dropLast().contains(where: { $0 > 255 }) { return false }
        return last < UInt64(1) << (8 * (5 - numbers.count))
    }

    /// The IPv4 number parser: decimal, `0x` hexadecimal or `0` octal; nil on failure. Values
    /// saturate above 2^33, which every caller reads as too large.
    static func number(_ part: ArraySlice<UInt8>) -> UInt64? {
        guard !part.isEmpty else { return nil }
        var digits = part
        var radix: UInt64 = 10
        if digits.count >= 2, digits.first == UInt8(ascii: "0"),
            digits[digits.startIndex + 1] == UInt8(ascii: "x") || digits[digits.startIndex + 1] == UInt8(ascii: "X")
        {
            radix = 16
            digits = digits.dropFirst(2)
        } else if digits.count >= 2, digits.first == UInt8(ascii: "0") {
            radix = 8
            digits = digits.dropFirst()
        }
        var value: UInt64 = 0
        for byte in digits {
            guard let digit = Host.hexValue(byte).map(UInt64.init), digit < radix else { return nil }
            value = min(value * radix + digit, 1 << 33)
        }
        return value
    }
}

/// The standard's IPv6 parser, as far as deciding whether an address parses.
public enum IPv6 {
    public static func parses(_ input: ArraySlice<UInt8>) -> Bool {
        let input = Array(input)
        var pointer = 0
        var pieceIndex = 0
        var compressed = false
        func at(_ position: Int) -> UInt8? { position < input.count ? input[position] : nil }
        let colon = UInt8(ascii: ":")

        if at(pointer) == colon {
            guard at(pointer + 1) == colon else { return false }
            pointer += 2
            pieceIndex += 1
            compressed = true
        }
        while let byte = at(pointer) {
            if pieceIndex == 8 { return false }
            if byte == colon {
                if compressed { return false }
                pointer += 1
                pieceIndex += 1
                compressed = true
                continue
            }
            var length = 0
            while length < 4, let next = at(pointer), Host.hexValue(next) != nil {
                pointer += 1
                length += 1
            }
            if at(pointer) == UInt8(ascii: ".") {
                // An IPv4 address in the last two pieces.
                if length == 0 { return false }
                pointer -= length
                if pieceIndex > 6 { return false }
                var numbersSeen = 0
                while let next = at(pointer) {
                    if numbersSeen > 0 {
                        guard next == UInt8(ascii: "."), numbersSeen < 4 else { return false }
                        pointer += 1
                    }
                    guard let first = at(pointer), URLValidity.isASCIIDigit(first) else { return false }
                    var piece: Int?
                    while let digit = at(pointer), URLValidity.isASCIIDigit(digit) {
                        let number = Int(digit - UInt8(ascii: "0"))
                        if piece == 0 { return false }
                        piece = (piece ?? 0) * 10 + number
                        if piece! > 255 { return false }
                        pointer += 1
                    }
                    numbersSeen += 1
                    if numbersSeen == 2 || numbersSeen == 4 { pieceIndex += 1 }
                }
                return numbersSeen == 4 && (compressed || pieceIndex == 8)
            } else if at(pointer) == colon {
                pointer += 1
                if at(pointer) == nil { return false }
            } else if at(pointer) != nil {
                return false
            }
            pieceIndex += 1
        }
        return compressed || pieceIndex == 8
    }
}
