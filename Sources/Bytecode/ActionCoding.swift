// ActionCoding.swift — Bytecode
//
// An action in the actions section: its type, 1 byte (the index in `Action.typeNames`), then:
//
//     css-display-none   selector: string (varint length, UTF-8)
//     notify             notification: string
//     redirect           kind 1: 0 extension-path string, 1 regex-substitution string,
//                        2 transform (below), 3 url string
//     modify-headers     request operations, response operations (each: varint count, then per
//                        operation kind 1 (0 append, 1 set, 2 remove), header string, value string
//                        unless remove), priority 4
//     others             nothing
//
// transform: a 2-byte mask of the fields present (bit 0 fragment, 1 host, 2 password, 3 path,
// 4 port, 5 scheme, 6 username, 7 query, 8 query-transform), then each present field in that
// order: strings; the port as 1 byte (0: remove the port, 1: a port follows) then 2; the
// query-transform as add-or-replace parameters (varint count, then key string, value string,
// replace-only 1) and remove parameters (varint count, then strings).
// Tested by ContentBlockerTests/ContentBlockerTests.swift (every list through its bytes).

public import ContentRuleList

public enum ActionCoding {
    public static func write(_ action: Action, to writer: inout ByteWriter) {
        writer.u8(TypeCode(action).rawValue)
        switch action {
        case .block, .blockCookies, .ignorePreviousRules, .ignoreFollowingRules, .makeHTTPS: break
        case .cssDisplayNone(let selector): writer.string(selector)
        case .notify(let notification): writer.string(notification)
        case .redirect(let redirect):
            switch redirect {
            case .extensionPath(let path): writer.u8(0); writer.string(path)
            case .regexSubstitution(let substitution): writer.u8(1); writer.string(substitution)
            case .transform(let transform): writer.u8(2); write(transform, to: &writer)
            case .url(let url): writer.u8(3); writer.string(url)
            }
        case .modifyHeaders(let headers):
            for operations in [headers.requestHeaders, headers.responseHeaders] {
                writer.varint(UInt32(operations.count))
                for operation in operations {
                    switch operation {
                    case .append(let header, let value): writer.u8(0); writer.string(header); writer.string(value)
                    case .set(let header, let value): writer.u8(1); writer.string(header); writer.string(value)
                    case .remove(let header): writer.u8(2); writer.string(header)
                    }
                }
            }
            writer.u32(headers.priority)
        }
    }

    /// An action's type as the file writes it: its index in `Action.typeNames`, named by case
    /// (not looked up by name: a list has thousands of actions). The writer and the reader both
    /// go through it, so each code is said once.
    enum TypeCode: UInt8 {
        case block = 0, blockCookies, cssDisplayNone, ignorePreviousRules, ignoreFollowingRules, makeHTTPS, notify, redirect,
            modifyHeaders

        init(_ action: Action) {
            self = switch action {
            case .block: .block
            case .blockCookies: .blockCookies
            case .cssDisplayNone: .cssDisplayNone
            case .ignorePreviousRules: .ignorePreviousRules
            case .ignoreFollowingRules: .ignoreFollowingRules
            case .makeHTTPS: .makeHTTPS
            case .notify: .notify
            case .redirect: .redirect
            case .modifyHeaders: .modifyHeaders
            }
            assert(Action.typeNames[Int(rawValue)] == action.typeName, "type code \(rawValue) for \(action.typeName)")
        }
    }

    private static func write(_ transform: URLTransform, to writer: inout ByteWriter) {
        let strings = [transform.fragment, transform.host, transform.password, transform.path]
        let laterStrings = [transform.scheme, transform.username, transform.query]
        var mask: UInt16 = 0
        for (bit, value) in strings.enumerated() where value != nil { mask |= 1 << bit }
        if transform.port != nil { mask |= 1 << 4 }
        for (bit, value) in laterStrings.enumerated() where value != nil { mask |= 1 << (bit + 5) }
        if transform.queryTransform != nil { mask |= 1 << 8 }
        writer.u16(mask)
        for value in strings { if let value { writer.string(value) } }
        if let port = transform.port {
            if let port { writer.u8(1); writer.u16(port) } else { writer.u8(0) }
        }
        for value in laterStrings { if let value { writer.string(value) } }
        if let query = transform.queryTransform {
            writer.varint(UInt32(query.addOrReplaceParameters.count))
            for parameter in query.addOrReplaceParameters {
                writer.string(parameter.key)
                writer.string(parameter.value)
                writer.u8(parameter.replaceOnly ? 1 : 0)
            }
            writer.varint(UInt32(query.removeParameters.count))
            for key in query.removeParameters { writer.string(key) }
        }
    }

    public static func read(from reader: inout ByteReader) throws(BytecodeError) -> Action {
        let at = reader.offset
        let type = try reader.u8()
        guard let code = TypeCode(rawValue: type) else { throw .malformed(at: at, "action type \(type)") }
        switch code {
        case .block: return .block
        case .blockCookies: return .blockCookies
        case .cssDisplayNone: return .cssDisplayNone(selector: try reader.string())
        case .ignorePreviousRules: return .ignorePreviousRules
        case .ignoreFollowingRules: return .ignoreFollowingRules
        case .makeHTTPS: return .makeHTTPS
        case .notify: return .notify(notification: try reader.string())
        case .redirect:
            let kindAt = reader.offset
            switch try reader.u8() {
            case 0: return .redirect(.extensionPath(try reader.string()))
            case 1: return .redirect(.regexSubstitution(try reader.string()))
            case 2: return .redirect(.transform(try readTransform(from: &reader)))
            case 3: return .redirect(.url(try reader.string()))
            case let kind: throw .malformed(at: kindAt, "redirect kind \(kind)")
            }
        case .modifyHeaders:
            var lists: [[ModifyHeaders.Operation]] = []
            for _ in 0..<2 {
                // An operation takes 2 bytes at least (its kind, its header's length).
                let count = try reader.varintCount(of: "header operations", itemBytes: 2)
                var operations: [ModifyHeaders.Operation] = []
                for _ in 0..<count {
                    let kindAt = reader.offset
                    switch try reader.u8() {
                    case 0: operations.append(.append(header: try reader.string(), value: try reader.string()))
                    case 1: operations.append(.set(header: try reader.string(), value: try reader.string()))
                    case 2: operations.append(.remove(header: try reader.string()))
                    case let kind: throw .malformed(at: kindAt, "header operation \(kind)")
                    }
                }
                lists.append(operations)
            }
            return .modifyHeaders(ModifyHeaders(requestHeaders: lists[0], responseHeaders: lists[1], priority: try reader.u32()))
        }
    }

    private static func readTransform(from reader: inout ByteReader) throws(BytecodeError) -> URLTransform {
        let at = reader.offset
        let mask = try reader.u16()
        guard mask < 1 << 9 else { throw .malformed(at: at, "transform mask 0x\(String(mask, radix: 16))") }
        func field(_ bit: Int) throws(BytecodeError) -> String? { mask & (1 << bit) != 0 ? try reader.string() : nil }
        var transform = URLTransform()
        transform.fragment = try field(0)
        transform.host = try field(1)
        transform.password = try field(2)
        transform.path = try field(3)
        if mask & (1 << 4) != 0 {
            let portAt = reader.offset
            switch try reader.u8() {
            case 0: transform.port = .some(nil)
            case 1: transform.port = .some(try reader.u16())
            case let flag: throw .malformed(at: portAt, "port flag \(flag)")
            }
        }
        transform.scheme = try field(5)
        transform.username = try field(6)
        transform.query = try field(7)
        if mask & (1 << 8) != 0 {
            var query = QueryTransform()
            // A parameter to add takes 3 bytes at least (two string lengths, its flag).
            let addCount = try reader.varintCount(of: "query parameters to add", itemBytes: 3)
            for _ in 0..<addCount {
                let key = try reader.string()
                let value = try reader.string()
                let flagAt = reader.offset
                let flag = try reader.u8()
                guard flag <= 1 else { throw .malformed(at: flagAt, "replace-only flag \(flag)") }
                query.addOrReplaceParameters.append(.init(key: key, value: value, replaceOnly: flag == 1))
            }
            let removeCount = try reader.varintCount(of: "query parameters to remove", itemBytes: 1)
            for _ in 0..<removeCount { query.removeParameters.append(try reader.string()) }
            transform.queryTransform = query
        }
        return transform
    }
}
