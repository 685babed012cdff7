// Reading the corpora: files (gzip-compressed or not) and the manifest that names them.
// Harness side: the engine modules never read files. Tested by CorpusTests and BlockBenchCLITests.

import CZlib
import Foundation

public enum CorpusFileError: Error, CustomStringConvertible {
    case unreadable(path: String, reason: String)
    case badGzip(path: String, reason: String)
    case badManifest(path: String, reason: String)
    /// A gzip file that decompresses to more than `limit` bytes (a gzip bomb, or not a corpus).
    case tooLarge(path: String, limit: Int)

    public var description: String {
        switch self {
        case .tooLarge(let path, let limit): "\(path) decompresses to more than \(limit / (1 << 20)) MiB: refused"
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .badGzip(let path, let reason): "\(path) is not valid gzip: \(reason)"
        case .badManifest(let path, let reason): "\(path): \(reason)"
        }
    }
}

public enum CorpusFiles {
    /// The most bytes a gzip file may decompress to: far more than any rule list or request set
    /// (WebKit takes at most 150,000 rules), and a bound on what a gzip bomb (about 1,000 times
    /// its size) can make this process allocate.
    public static let maximumDecompressedBytes = 256 << 20

    /// The bytes of a file, decompressed when it starts with the gzip magic number (to at most
    /// `limit` bytes).
    public static func read(_ path: String, limit: Int = maximumDecompressedBytes) throws(CorpusFileError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied or not a file" : "no such file"
            throw .unreadable(path: path, reason: reason)
        }
        let bytes = [UInt8](data)
        guard bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B else { return bytes }
        return try gunzip(bytes, path: path, limit: limit)
    }

    /// The lines of a text, without their ends: a line ends at LF or CRLF (a CR left at the very
    /// end goes too), so that a file saved with Windows line ends reads like one saved with LF.
    /// Empty lines are kept, so that a line's index + 1 is its number in the file.
    public static func lines(_ text: String) -> [Substring] {
        // "\r\n" is one Character: splitting on "\n" alone leaves it inside the line.
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
            .map { $0.last == "\r" ? $0.dropLast() : $0 }
    }

    public static func gunzip(_ input: [UInt8], path: String, limit: Int = maximumDecompressedBytes) throws(CorpusFileError) -> [UInt8] {
        var stream = z_stream()
        // 16 + MAX_WBITS: gzip wrapper only.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .badGzip(path: path, reason: "zlib failed to start")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        output.reserveCapacity(min(input.count * 8, limit))
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        var input = input
        var status: Int32 = Z_OK
        input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = UInt32(inputBuffer.count)
            repeat {
                chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = UInt32(chunkBuffer.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    output.append(contentsOf: chunkBuffer[0..<(chunkBuffer.count - Int(stream.avail_out))])
                }
            } while status == Z_OK && output.count <= limit
        }
        guard output.count <= limit else { throw .tooLarge(path: path, limit: limit) }
        guard status == Z_STREAM_END else {
            let reason = status == Z_BUF_ERROR ? "truncated" : (stream.msg.map { String(cString: $0) } ?? "zlib error \(status)")
            throw .badGzip(path: path, reason: reason)
        }
        return output
    }
}

/// Corpora/manifest.json: which files are rule lists, request sets and vectors.
public struct CorpusManifest: Decodable, Sendable {
    public struct Entry: Decodable, Sendable {
        public var name: String
        public var file: String
        public var kind: String
        public var rows: Int
        public var origin: String
        public var licence: String
        /// For a `rules-abp` entry: the Safari list (a `rules` entry) converted from this text.
        public var safariList: String? = nil
    }

    public var corpora: [Entry]
    /// The folder holding the manifest; entries' files are relative to it.
    public var root: String = "Corpora"

    enum CodingKeys: String, CodingKey { case corpora }

    public static func load(root: String) throws(CorpusFileError) -> CorpusManifest {
        let path = root + "/manifest.json"
        let bytes = try CorpusFiles.read(path)
        do {
            var manifest = try JSONDecoder().decode(CorpusManifest.self, from: Data(bytes))
            manifest.root = root
            return manifest
        } catch {
            throw .badManifest(path: path, reason: String(describing: error))
        }
    }

    public func entries(ofKind kind: String) -> [Entry] { corpora.filter { $0.kind == kind } }
    public func path(of entry: Entry) -> String { root + "/" + entry.file }
}
