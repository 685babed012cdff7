public import ArgumentParser
public struct BlockBenchCommand: ParsableCommand {
    public init() {}
    public func run() throws {}
}
