// ProgramSet.swift — Bytecode
//
// The programs that run over one URL (the request's, the main document's or the frame's): some
// run whole, from the URL's start; the others come in stages (StagePlanner.swift in Automata).
// A stage's prefix program reports pattern 0 wherever a match of the shared prefix ends, after
// p bytes; each suffix program then runs over the URL from byte p on, as if the URL began there,
// and reports the patterns it finds like any program. (A suffix whose start state reports nothing
// and stops on byte p is skipped: the same answer without the run.)
//
// In a file (a programs section):
//
//     programCount   4   then the whole programs (ProgramCoding.swift)
//     stageCount     4   then per stage: the prefix program (its only pattern is 0), the
//                        suffix count 4 and the suffix programs

public import Automata

public struct ProgramSet: Hashable, Sendable {
    public struct Stage: Hashable, Sendable {
        public let prefix: Program
        public let suffixes: [Program]
        /// Per suffix, what its first step does (`Program.StartSummary`): a suffix that reports
        /// nothing at its start and stops on the byte where the prefix ended is not run at all.
        /// The empty prefix ends before every byte of the URL, and most bytes start no pattern.
        public let suffixStarts: [Program.StartSummary]
        /// The same by byte, for the interpreter: the suffixes that go on from byte b (128 for
        /// every byte from 128 on) are `startingSuffixes[firstByteStart[b]..<firstByteStart[b + 1]]`.
        @usableFromInline let firstByteStart: [Int32]
        @usableFromInline let startingSuffixes: [Int32]

        public init(prefix: Program, suffixes: [Program]) {
            self.prefix = prefix
            self.suffixes = suffixes
            suffixStarts = suffixes.map { $0.startSummary() }
            var firstByteStart: [Int32] = [0]
            var startingSuffixes: [Int32] = []
            for byte in 0...128 {
                for (index, start) in suffixStarts.enumerated() where byte < 128 ? start.goesOn(UInt8(byte)) : start.reports {
                    startingSuffixes.append(Int32(index))
                }
                firstByteStart.append(Int32(startingSuffixes.count))
            }
            self.firstByteStart = firstByteStart
            self.startingSuffixes = startingSuffixes
        }
    }

    /// Programs run from the URL's start.
    public var programs: [Program]
    public var stages: [Stage]

    public init(programs: [Program], stages: [Stage] = []) {
        self.programs = programs
        self.stages = stages
    }

    /// The programs the partitioner made (`DFAPartitioner.build(_:limits:minimizing:phaseTimer:product:)`
    /// with `Program.init`).
    public init(_ partition: Partitioned<Program>) {
        programs = partition.dfas
        stages = partition.stages.map { Stage(prefix: $0.prefix, suffixes: $0.suffixes) }
    }

    /// The programs of the DFAs `dfas`.
    public init(_ dfas: PartitionedDFAs) {
        programs = dfas.dfas.map(Program.init)
        stages = dfas.stages.map { Stage(prefix: Program($0.prefix), suffixes: $0.suffixes.map(Program.init)) }
    }

    /// Every program, prefixes included.
    public var allPrograms: [Program] { programs + stages.flatMap { [$0.prefix] + $0.suffixes } }

    public var isEmpty: Bool { programs.isEmpty && stages.isEmpty }

    /// Runs every program over `url` (then the end-of-URL NUL), telling `report` each pattern
    /// found (a pattern may be told more than once). `ends` is working memory, kept by the
    /// caller between runs so that this allocates nothing once it has grown. Returns the
    /// interpreter steps (bytes read by every run) and the program runs.
    @inlinable
    public func run(_ url: UnsafeBufferPointer<UInt8>, ends: inout [Int], report: (UInt32) -> Void) -> (steps: Int, runs: Int) {
        var steps = 0
        var runs = programs.count
        // Programs are borrowed through buffer pointers: iterating the arrays would copy each
        // Program (retaining its arrays) at every URL position an empty prefix reports.
        programs.withUnsafeBufferPointer { programs in
            for index in programs.indices { steps += programs[index].run(url, report: report) }
        }
        stages.withUnsafeBufferPointer { stages in
            for stageIndex in stages.indices {
                ends.removeAll(keepingCapacity: true)
                steps += stages[stageIndex].prefix.runReportingEnds(url) { end in
                    // A prefix never reads the end-of-URL NUL (the planner keeps end markers out of
                    // prefixes); the bound also holds for a valid file built otherwise.
                    if end <= url.count && ends.last != end { ends.append(end) }
                }
                runs += 1
                stages[stageIndex].suffixes.withUnsafeBufferPointer { suffixes in
                    stages[stageIndex].firstByteStart.withUnsafeBufferPointer { firstByteStart in
                        stages[stageIndex].startingSuffixes.withUnsafeBufferPointer { starting in
                            for end in ends {
                                let rest = UnsafeBufferPointer(rebasing: url[end...])
                                let first = end < url.count ? Int(url[end]) : 0
                                let byte = min(first, 128)
                                for at in Int(firstByteStart[byte])..<Int(firstByteStart[byte + 1]) {
                                    steps += suffixes[Int(starting[at])].run(rest, report: report)
                                    runs += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        return (steps, runs)
    }

    func write(to writer: inout ByteWriter) {
        writer.u32(UInt32(programs.count))
        for program in programs { program.write(to: &writer) }
        writer.u32(UInt32(stages.count))
        for stage in stages {
            stage.prefix.write(to: &writer)
            writer.u32(UInt32(stage.suffixes.count))
            for suffix in stage.suffixes { suffix.write(to: &writer) }
        }
    }

    /// Reads and validates a programs section's content.
    static func read(from reader: inout ByteReader, patternCount: Int) throws(BytecodeError) -> ProgramSet {
        func programs() throws(BytecodeError) -> [Program] {
            let count = Int(try reader.u32())
            guard count <= reader.remaining / Program.smallestEncoding else { throw .truncated(at: reader.offset) }
            var result: [Program] = []
            for _ in 0..<count { result.append(try Program.read(from: &reader, patternCount: patternCount)) }
            return result
        }
        let whole = try programs()
        let stageCount = Int(try reader.u32())
        guard stageCount <= reader.remaining / (Program.smallestEncoding + 4) else { throw .truncated(at: reader.offset) }
        var stages: [Stage] = []
        for _ in 0..<stageCount {
            let prefix = try Program.read(from: &reader, patternCount: 1)
            stages.append(Stage(prefix: prefix, suffixes: try programs()))
        }
        return ProgramSet(programs: whole, stages: stages)
    }

    /// Every program as text, headed `name program i`, `name stage i prefix`, `name stage i suffix j`.
    public func disassemble(name: String) -> String {
        var lines: [String] = []
        func add(_ title: String, _ program: Program) {
            lines.append(title + ":")
            lines.append(program.disassemble().split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }.joined(separator: "\n"))
        }
        for (index, program) in programs.enumerated() { add("\(name) program \(index)", program) }
        for (index, stage) in stages.enumerated() {
            add("\(name) stage \(index) prefix (p0: the suffixes start here)", stage.prefix)
            for (suffixIndex, suffix) in stage.suffixes.enumerated() { add("\(name) stage \(index) suffix \(suffixIndex)", suffix) }
        }
        return lines.joined(separator: "\n")
    }
}
