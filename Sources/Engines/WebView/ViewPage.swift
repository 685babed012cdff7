// ViewPage.swift — Engines
//
// The HTML of one page load: an element for each subresource (an <img>, a <script>, a fetch()
// ...), the targets whose style is read back, and a script that waits for its own requests to
// settle (`window.bbDone`) and then reports (`window.bbReport()`):
//   {"hidden": [target ids whose computed display is none],
//    "matches": [for each candidate: the target ids it matches, or null when the browser's
//                selector parser refuses it]}
// The page has no style of its own, so only a content blocker hides a target. Cross-origin
// requests go with credentials, so that the cookie set for their host is sent unless blocked. The candidates let
// the browser's own selector engine decide which targets BlockBench's selectors select.
// No unit test: the pages are read by a real web view (`conform --against webkit-view`, .ci/run),
// where a page whose script does not report is counted apart.

import Foundation

extension ViewPageLoad {
    /// The page's HTML.
    public var html: String {
        var head: [String] = []
        var body: [String] = []
        var requests: [String] = []
        var fonts = 0
        for subresource in subresources {
            let url = subresource.url
            switch subresource.kind {
            case .image: body.append("<img src=\"\(Self.attribute(url))\" alt=\"\">")
            case .script: body.append("<script async src=\"\(Self.attribute(url))\"></script>")
            case .styleSheet: head.append("<link rel=\"stylesheet\" href=\"\(Self.attribute(url))\">")
            case .childDocument: body.append("<iframe src=\"\(Self.attribute(url))\" width=\"10\" height=\"10\"></iframe>")
            case .media: body.append("<video preload=\"auto\" muted src=\"\(Self.attribute(url))\"></video>")
            case .font:
                fonts += 1
                head.append("<style>@font-face{font-family:bb\(fonts);src:url(\(Self.cssString(url)))}</style>")
                body.append("<span style=\"font-family:bb\(fonts)\">f</span>")
            case .xhr: requests.append("xhr(\(Self.script(url)))")
            case .fetch: requests.append("fetch(\(Self.script(url)),{mode:'no-cors',credentials:'include'}).catch(()=>{})")
            case .eventSource: requests.append("source(\(Self.script(url)))")
            case nil: break
            }
        }
        for target in targets { body.append(target.html) }
        let candidateList = "[" + candidates.map { "[" + $0.map(Self.script).joined(separator: ",") + "]" }.joined(separator: ",") + "]"
        return """
            <!doctype html><html><head><meta charset="utf-8"><title>blockbench view \(index)</title>
            \(head.joined(separator: "\n"))
            </head><body>
            \(body.joined(separator: "\n"))
            <script>
            function xhr(u){return new Promise(r=>{try{const x=new XMLHttpRequest();x.onloadend=r;x.open('GET',u);x.withCredentials=true;x.send()}catch(e){r()}})}
            function source(u){return new Promise(r=>{try{const s=new EventSource(u,{withCredentials:true});const end=()=>{s.close();r()};s.onerror=end;s.onopen=end;setTimeout(end,1000)}catch(e){r()}})}
            const bbCandidates=\(candidateList);
            window.bbReport=function(){
              const hidden=[];
              for(const e of document.querySelectorAll('[data-bb]')){if(getComputedStyle(e).display==='none')hidden.push(+e.dataset.bb)}
              const select=s=>[...document.querySelectorAll(s)].filter(e=>e.dataset.bb!==undefined).map(e=>+e.dataset.bb);
              const matches=bbCandidates.map(c=>{
                try{return select(c.join(', '))}catch(e){if(c.length<2)return null}
                const found=new Set();let read=false;
                for(const s of c){try{select(s).forEach(i=>found.add(i));read=true}catch(e){}}
                return read?[...found]:null;
              });
              return {hidden:hidden,matches:matches};
            };
            window.addEventListener('load',()=>{Promise.allSettled([\(requests.joined(separator: ","))]).then(()=>{window.bbDone=true})});
            </script>
            </body></html>
            """
    }

    static func attribute(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }

    /// A JavaScript string literal (JSON's, with `<` escaped so no text ends the script element).
    static func script(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data("[\"\"]".utf8)
        let array = String(decoding: data, as: UTF8.self)
        return String(array.dropFirst().dropLast()).replacingOccurrences(of: "<", with: "\\u003c")
    }

    /// A CSS string literal.
    static func cssString(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\a ") + "\""
    }
}
