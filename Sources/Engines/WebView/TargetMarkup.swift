// TargetMarkup.swift — Engines
//
// Markup that a CSS selector selects: for `div.ad > a[href^="x"]` a `<div class="ad">` holding
// an `<a href="x-">` marked `data-bb`. It covers the selectors element hiding lists are made of:
// compound selectors of a type (or `*`), `#id`, `.class` and attribute tests (`[a]`, `=`, `^=`,
// `$=`, `*=`, `~=`, `|=`, quoted or not, with an ` i` flag), joined by descendant, child and
// sibling combinators. A selector with anything else (pseudo-classes, escapes, namespaces) gets
// no markup: the browser reads back which targets each selector matches, so a target built
// wrongly is seen, never trusted.

package enum TargetMarkup {
    /// Elements that make requests or are not rendered: a target is never one of these.
    static let refusedTypes: Set<String> = [
        "script", "style", "link", "meta", "head", "html", "body", "title", "base", "template", "noscript", "iframe", "frame",
        "frameset", "object", "embed", "video", "audio", "source", "track", "img", "picture", "input", "select", "option",
        "textarea", "button", "svg", "math", "param", "area", "map", "br", "hr", "wbr", "col", "colgroup", "dialog",
        "details", "summary", "slot", "portal", "canvas", "tr", "td", "th", "tbody", "thead", "tfoot", "caption", "table",
        "li", "dt", "dd", "rt", "rp", "datalist",
    ]

    /// Markup selected by `selector`, with the subject element carrying `data-bb="id"`; nil when
    /// the selector is outside what this builds.
    package static func markup(for selector: String, id: Int) -> String? {
        guard let chain = parse(selector), !chain.isEmpty else { return nil }
        // Build from the subject outwards: each combinator wraps or precedes what is built.
        var html = element(chain.last!.compound, marker: " data-bb=\"\(id)\"", inner: "")
        var index = chain.count - 1
        while index > 0 {
            let combinator = chain[index].combinator
            let left = chain[index - 1].compound
            switch combinator {
            case " ", ">": html = element(left, marker: "", inner: html)
            case "+": html = element(left, marker: "", inner: "") + html
            case "~": html = element(left, marker: "", inner: "") + "<span></span>" + html
            default: return nil
            }
            index -= 1
        }
        return "<div>" + html + "</div>"
    }

    package struct Compound {
        var type = "div"
        var attributes: [(name: String, value: String)] = []
    }

    /// The compounds of a selector, each with the combinator before it (" " for the first).
    package static func parse(_ selector: String) -> [(combinator: Character, compound: Compound)]? {
        let text = Array(selector.trimmingCharacters(in: .whitespaces))
        guard !text.isEmpty, !text.contains("\\") else { return nil }
        // Pseudo-classes, lists and namespaces are refused; inside an attribute test anything goes.
        var quote: Character?
        var inAttribute = false
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
            } else if inAttribute {
                if character == "\"" || character == "'" { quote = character } else if character == "]" { inAttribute = false }
            } else if character == "[" {
                inAttribute = true
            } else if ":,|()".contains(character) {
                return nil
            }
        }
        var chain: [(Character, Compound)] = []
        var position = 0
        var combinator: Character = " "
        while position < text.count {
            guard var compound = parseCompound(text, &position) else { return nil }
            if refusedTypes.contains(compound.type) || compound.attributes.contains(where: { $0.name == "hidden" }) { return nil }
            if compound.type == "*" { compound.type = "div" }
            chain.append((combinator, compound))
            // A combinator: whitespace, or >, + or ~ with optional whitespace around.
            var sawSpace = false
            while position < text.count && text[position] == " " { position += 1; sawSpace = true }
            guard position < text.count else { break }
            if ">+~".contains(text[position]) {
                combinator = text[position]
                position += 1
                while position < text.count && text[position] == " " { position += 1 }
            } else if sawSpace {
                combinator = " "
            } else {
                return nil
            }
        }
        return chain
    }

    static func parseCompound(_ text: [Character], _ position: inout Int) -> Compound? {
        var compound = Compound()
        var classes: [String] = []
        let start = position
        if position < text.count && text[position] == "*" {
            compound.type = "*"
            position += 1
        } else {
            let name = identifier(text, &position)
            if !name.isEmpty { compound.type = name.lowercased() }
        }
        while position < text.count {
            switch text[position] {
            case "#":
                position += 1
                let name = identifier(text, &position)
                guard !name.isEmpty else { return nil }
                compound.attributes.append(("id", name))
            case ".":
                position += 1
                let name = identifier(text, &position)
                guard !name.isEmpty else { return nil }
                classes.append(name)
            case "[":
                position += 1
                guard let attribute = attributeTest(text, &position) else { return nil }
                if attribute.name == "class" {
                    classes.append(attribute.value)
                } else {
                    compound.attributes.removeAll { $0.name == attribute.name }
                    compound.attributes.append(attribute)
                }
            default:
                guard position > start else { return nil }
                if !classes.isEmpty { compound.attributes.append(("class", classes.joined(separator: " "))) }
                return compound
            }
        }
        if !classes.isEmpty { compound.attributes.append(("class", classes.joined(separator: " "))) }
        return position > start ? compound : nil
    }

    /// `name op value flag]` after the `[`: the attribute and a value the test accepts.
    static func attributeTest(_ text: [Character], _ position: inout Int) -> (name: String, value: String)? {
        func spaces() { while position < text.count && text[position] == " " { position += 1 } }
        spaces()
        let name = identifier(text, &position).lowercased()
        guard !name.isEmpty else { return nil }
        spaces()
        guard position < text.count else { return nil }
        if text[position] == "]" {
            position += 1
            return (name, "")
        }
        var op: Character = "="
        if "^$*~|".contains(text[position]) {
            op = text[position]
            position += 1
        }
        guard position < text.count, text[position] == "=" else { return nil }
        position += 1
        spaces()
        var value = ""
        if position < text.count, text[position] == "\"" || text[position] == "'" {
            let quote = text[position]
            position += 1
            while position < text.count && text[position] != quote {
                value.append(text[position])
                position += 1
            }
            guard position < text.count else { return nil }
            position += 1
        } else {
            value = identifier(text, &position)
            guard !value.isEmpty else { return nil }
        }
        spaces()
        if position < text.count, text[position] == "i" || text[position] == "s" {
            position += 1
            spaces()
        }
        guard position < text.count, text[position] == "]" else { return nil }
        position += 1
        switch op {
        case "^": value += "-x"
        case "$": value = "x-" + value
        case "*": value = "x-" + value + "-x"
        case "|": value += "-x"
        default: break
        }
        return (name, value)
    }

    static func identifier(_ text: [Character], _ position: inout Int) -> String {
        var name = ""
        while position < text.count, text[position].isLetter || text[position].isNumber || text[position] == "-" || text[position] == "_" {
            name.append(text[position])
            position += 1
        }
        return name
    }

    static func element(_ compound: Compound, marker: String, inner: String) -> String {
        var attributes = ""
        for (name, value) in compound.attributes {
            // Attributes that would make a request or run script are not written.
            if ["src", "srcset", "data", "action", "formaction", "style", "background", "poster"].contains(name) || name.hasPrefix("on") {
                continue
            }
            attributes += " \(name)=\"\(ViewPageLoad.attribute(value))\""
        }
        return "<\(compound.type)\(attributes)\(marker)>\(inner)</\(compound.type)>"
    }
}
