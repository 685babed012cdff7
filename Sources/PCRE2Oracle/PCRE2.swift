// PCRE2.swift — PCRE2Oracle
//
// The one file that talks to libpcre2-8: compile with an explicit byte length, JIT when the
// library has it, match over bytes with caller-owned match data, errors with PCRE2's own code,
// offset and message. Option constants and error codes are converted here and nowhere else.
// Tested by PCRE2OracleTests/PCRE2OracleTests.swift (PCRE2WrapperTests).

internal import CPCRE2

/// A PCRE2 failure: the library's error code, the byte offset in the pattern (compile errors) and
/// the library's message for the code.
public struct PCRE2Error: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Int32
    public var offset: Int?
    public var message: String
    public var pattern: String

    init(code: Int32, offset: Int?, pattern: String) {
        self.code = code
        self.offset = offset
        self.pattern = pattern
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = buffer.withUnsafeMutableBufferPointer { pcre2_get_error_message_8(code, $0.baseAddress, $0.count) }
        message = length > 0 ? String(decoding: buffer[..<Int(length)], as: UTF8.self) : "PCRE2 error \(code)"
    }

    public var description: String {
        "PCRE2 error \(code)" + (offset.map { " at offset \($0)" } ?? "") + ": \(message) (pattern \(pattern))"
    }
}

/// A compiled PCRE2 pattern. Immutable after creation, so one regex serves every thread; each
/// thread brings its own `PCRE2MatchData`.
public final class PCRE2Regex: @unchecked Sendable {
    public struct Options: OptionSet, Hashable, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Case-insensitive matching. Without UTF, PCRE2's built-in tables fold ASCII letters only.
        public static let caseless = Options(rawValue: UInt32(PCRE2_CASELESS))
        /// `$` matches only at the very end of the subject, never before a final newline.
        public static let dollarEndOnly = Options(rawValue: UInt32(PCRE2_DOLLAR_ENDONLY))
    }

    private let code: OpaquePointer
    public let pattern: String
    public let options: Options
    /// Whether the JIT compiled this pattern (`matches` then runs the JIT code unless told not to).
    public let isJITCompiled: Bool

    /// Whether this libpcre2 was built with the JIT.
    public static let jitAvailable: Bool = {
        var available: UInt32 = 0
        return pcre2_config_8(UInt32(PCRE2_CONFIG_JIT), &available) >= 0 && available == 1
    }()

    public init(_ pattern: String, options: Options, jit: Bool = true) throws(PCRE2Error) {
        var errorCode: Int32 = 0
        var errorOffset = 0
        var text = pattern
        let compiled = text.withUTF8 { bytes in
            pcre2_compile_8(bytes.baseAddress, bytes.count, options.rawValue, &errorCode, &errorOffset, nil)
        }
        guard let compiled else { throw PCRE2Error(code: errorCode, offset: errorOffset, pattern: pattern) }
        code = compiled
        self.pattern = pattern
        self.options = options
        isJITCompiled = jit && Self.jitAvailable && pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE)) == 0
    }

    deinit { pcre2_code_free_8(code) }

    /// The compiled pattern's size in bytes as PCRE2 reports it, plus its JIT code when compiled.
    public var compiledBytes: Int {
        var size = 0
        var jitSize = 0
        pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_SIZE), &size)
        if isJITCompiled { pcre2_pattern_info_8(code, UInt32(PCRE2_INFO_JITSIZE), &jitSize) }
        return size + jitSize
    }

    /// The library's version, as `pcre2_config` gives it ("10.42 2022-12-11").
    public static let version: String = {
        var buffer = [UInt8](repeating: 0, count: 64)
        let length = pcre2_config_8(UInt32(PCRE2_CONFIG_VERSION), &buffer)
        return length > 1 ? String(decoding: buffer[..<Int(length - 1)], as: UTF8.self) : "unknown"
    }()

    /// Whether the pattern matches somewhere in `subject`. `interpreter: true` bypasses the JIT.
    public func matches(_ subject: UnsafeBufferPointer<UInt8>, using data: PCRE2MatchData, interpreter: Bool = false) throws(PCRE2Error) -> Bool {
        // A zero-length buffer may have no base address; PCRE2 wants a pointer anyway.
        let empty: UInt8 = 0
        let result: Int32 = withUnsafePointer(to: empty) { fallback in
            let base = subject.baseAddress ?? fallback
            if isJITCompiled && !interpreter {
                return pcre2_jit_match_8(code, base, subject.count, 0, 0, data.pointer, nil)
            }
            return pcre2_match_8(code, base, subject.count, 0, 0, data.pointer, nil)
        }
        if result >= 0 { return true }
        if result == PCRE2_ERROR_NOMATCH { return false }
        if Self.resourceLimits.contains(result) {
            // Nested quantifiers (`(.+)*x`) make backtracking exponential; PCRE2's other matcher,
            // the DFA one, answers the same question without backtracking.
            data.dfaFallbacks += 1
            return try matchesWithoutBacktracking(subject, using: data)
        }
        throw PCRE2Error(code: result, offset: nil, pattern: pattern)
    }

    private static let resourceLimits: Set<Int32> = [
        PCRE2_ERROR_MATCHLIMIT, PCRE2_ERROR_DEPTHLIMIT, PCRE2_ERROR_HEAPLIMIT, PCRE2_ERROR_JIT_STACKLIMIT,
    ]

    /// `pcre2_dfa_match`, with a workspace that grows until it suffices.
    public func matchesWithoutBacktracking(_ subject: UnsafeBufferPointer<UInt8>, using data: PCRE2MatchData) throws(PCRE2Error) -> Bool {
        let empty: UInt8 = 0
        var workspaceSize = 1 << 10
        while true {
            var workspace = [Int32](repeating: 0, count: workspaceSize)
            let result: Int32 = withUnsafePointer(to: empty) { fallback in
                workspace.withUnsafeMutableBufferPointer { space in
                    pcre2_dfa_match_8(code, subject.baseAddress ?? fallback, subject.count, 0, 0, data.pointer, nil, space.baseAddress, space.count)
                }
            }
            // 0: matched, but the match data had no room for every match found.
            if result >= 0 { return true }
            if result == PCRE2_ERROR_NOMATCH { return false }
            if (result == PCRE2_ERROR_DFA_WSSIZE || result == PCRE2_ERROR_DFA_RECURSE) && workspaceSize < 1 << 22 {
                workspaceSize *= 4
                continue
            }
            throw PCRE2Error(code: result, offset: nil, pattern: pattern)
        }
    }

    /// Whether the pattern matches each subject of `buffer`: subject `i` runs from the end of
    /// subject `i - 1` (or 0) to `ends[i]`. One call for many short subjects (the exhaustive small
    /// worlds), with PCRE2's interpreter and no allocation per subject.
    public func matchesEach(_ buffer: UnsafeBufferPointer<UInt8>, ends: [Int], using data: PCRE2MatchData) throws(PCRE2Error) -> [Bool] {
        var answers = [Bool](repeating: false, count: ends.count)
        guard let base = buffer.baseAddress else { return answers }
        // Anything but a match or no match (a backtracking limit) is answered the slow way below.
        var others: [Int] = []
        answers.withUnsafeMutableBufferPointer { answers in
            ends.withUnsafeBufferPointer { ends in
                var start = 0
                var index = 0
                while index < ends.count {
                    let result = pcre2_match_8(code, base + start, ends[index] - start, 0, 0, data.pointer, nil)
                    if result >= 0 {
                        answers[index] = true
                    } else if result != PCRE2_ERROR_NOMATCH {
                        others.append(index)
                    }
                    start = ends[index]
                    index += 1
                }
            }
        }
        for index in others {
            let start = index == 0 ? 0 : ends[index - 1]
            answers[index] = try matches(UnsafeBufferPointer(rebasing: buffer[start..<ends[index]]), using: data, interpreter: true)
        }
        return answers
    }

    public func matches(_ subject: String, using data: PCRE2MatchData, interpreter: Bool = false) throws(PCRE2Error) -> Bool {
        var subject = subject
        let result = subject.withUTF8 { bytes in Result { () throws(PCRE2Error) in try matches(bytes, using: data, interpreter: interpreter) } }
        return try result.get()
    }
}

/// Per-thread scratch space for matching (PCRE2 match data is not thread-safe).
public final class PCRE2MatchData {
    let pointer: OpaquePointer
    /// Matches that hit a backtracking limit and were answered by `pcre2_dfa_match` instead.
    public internal(set) var dfaFallbacks = 0

    public init() {
        // One pair of offsets: the oracle asks only whether a pattern matches.
        pointer = pcre2_match_data_create_8(1, nil)!
    }

    deinit { pcre2_match_data_free_8(pointer) }
}
