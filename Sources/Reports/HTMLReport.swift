// HTMLReport.swift — Reports
//
// The report's page: one self-contained HTML file (no scripts, no external files) with inline SVG
// charts: each benchmark's engine ratios (log scale), the latency distribution of each match
// benchmark (percentile against latency, both on log scales, HdrHistogram style), then every
// table. The figures over the recorded runs are not here: a page that drew them would grow with
// every run; `blockbench report` builds them from the history on demand (History/TrendsPage.swift,
// Reports/trends/), and this page links there.
//
// Tested by BenchmarksTests/BenchTests.swift (a report written whole).

import Foundation
internal import Benchmarks
internal import TerminalText

struct HTMLReport {
    let report: Report

    static let palette: [String: String] = [
        "blockbench": "#1f6feb", "pcre2-jit": "#e8590c", "pcre2": "#8250df", "webkit": "#1a7f37",
        "adblock-rust": "#bf8700", "ublock-origin": "#800000",
    ]
    static func color(_ engine: String) -> String { palette[engine] ?? "#6e7781" }

    var html: String {
        let meta = report.meta
        var body: [String] = []
        body.append("<h1>BlockBench report <code>\(escape(meta.folderName))</code></h1>")
        body.append(
            "<p class=meta>\(escape(meta.machine)), \(meta.cores) cores, \(meta.memoryGiB) GiB · \(escape(meta.os))<br>"
                + "\(escape(meta.toolchain)) · PCRE2 \(escape(meta.pcre2)) · WebKitGTK: \(escape(meta.webkit))<br>"
                + "measured \(escape(meta.date)) at revision <code>\(escape(meta.revision))</code> · regenerate: "
                + "<code>swift run -c release \(escape(meta.command))</code></p>")
        body.append(
            "<p>Times are medians of measured runs after warm-up. Ratios compare each engine with the best engine of the same "
                + "benchmark in this run. Every engine's answers are checked against the PCRE2 oracle before its time counts, "
                + "except a peer's (marked <em>peer</em>: other semantics, measured, not conformed; its block verdicts are "
                + "compared with BlockBench's in its table).</p>")
        body.append("<h2>Engine ratios</h2><p>Time (compile, check: seconds; match: median latency per request) over the best engine, log scale.</p>")
        body.append(ratioChart())
        let matches = report.benchmarks.filter { $0.model == .match }
        if !matches.isEmpty {
            body.append("<h2>Latency distributions</h2><p>Per-request latency at each percentile, log scales; sampled engines answer the sample their table states.</p>")
            body.append("<div class=grid>" + matches.map(latencyChart).joined() + "</div>")
        }
        body.append("<h2>Over the recorded runs</h2><p>The trends of every benchmark, built from the history by "
            + "<code>blockbench report --from-history</code>: <a href=\"../trends/index.html\">../trends/index.html</a>.</p>")
        body.append("<h2>Tables</h2>")
        for result in report.benchmarks { body.append(table(ResultTable(result))) }
        return """
            <!doctype html>
            <html lang=en><head><meta charset=utf-8><title>BlockBench report \(escape(meta.folderName))</title>
            <meta name=viewport content="width=device-width, initial-scale=1">
            <style>
            body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1180px;padding:0 16px;color:#1f2328}
            h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:14px;margin:18px 0 6px}
            code{font:12px ui-monospace,monospace;background:#f6f8fa;padding:1px 4px;border-radius:4px}
            .meta{color:#57606a}
            table{border-collapse:collapse;font-size:12px;margin-bottom:8px}td,th{border:1px solid #d0d7de;padding:3px 7px;text-align:left;vertical-align:top}
            th{background:#f6f8fa}.wrong{color:#cf222e;font-weight:600}
            .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(360px,1fr));gap:12px}
            svg text{font:11px system-ui,sans-serif;fill:#1f2328}svg .axis{stroke:#8c959f;stroke-width:1}svg .grid{stroke:#eaeef2;stroke-width:1}
            .legend span{display:inline-block;margin-right:14px}.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
            </style></head><body>
            \(legend())
            \(body.joined(separator: "\n"))
            </body></html>

            """
    }

    func legend() -> String {
        let engines = Array(Set(report.benchmarks.flatMap { $0.engines.map(\.engine) })).sorted { a, b in
            (Self.order(a), a) < (Self.order(b), b)
        }
        let peers = Set(report.benchmarks.flatMap { $0.engines.filter { $0.peer == true }.map(\.engine) })
        return "<p class=legend>" + engines.map { engine in
            let label = peers.contains(engine) ? engine + " (peer: measured, not conformed)" : engine
            return "<span><i style=\"background:\(Self.color(engine))\"></i>\(escape(label))</span>"
        }.joined() + "</p>"
    }

    static func order(_ engine: String) -> Int {
        ["blockbench", "webkit", "pcre2-jit", "pcre2", "adblock-rust", "ublock-origin"].firstIndex(of: engine) ?? 9
    }

    // MARK: Ratios

    func ratioChart() -> String {
        let rows = report.benchmarks.flatMap { result in result.engines.map { (result, $0) } }
        let maxRatio = max(10, rows.compactMap(\.1.timeRatio).max() ?? 10)
        let decades = Int(ceil(log10(maxRatio)))
        let labelWidth = 330.0
        let width = 1100.0
        let plot = width - labelWidth - 90
        let rowHeight = 16.0
        var y = 24.0
        var parts: [String] = []
        for d in 0...decades {
            let x = labelWidth + plot * Double(d) / Double(decades)
            parts.append("<line class=grid x1=\(f(x)) y1=14 x2=\(f(x)) y2=HEIGHT />")
            parts.append("<text x=\(f(x)) y=10 text-anchor=middle>\(HumanReadable.count(Int(pow(10, Double(d)))))x</text>")
        }
        for result in report.benchmarks {
            parts.append("<text x=0 y=\(f(y + 11)) font-weight=600>\(escape(result.name))</text>")
            y += rowHeight
            for engine in result.engines {
                parts.append("<text x=16 y=\(f(y + 11))>\(escape(engine.engine + (engine.peer == true ? " (peer)" : "")))</text>")
                if let ratio = engine.timeRatio {
                    let length = max(2, plot * log10(max(1, ratio)) / Double(decades))
                    parts.append(
                        "<rect x=\(f(labelWidth)) y=\(f(y + 2)) width=\(f(length)) height=11 fill=\"\(Self.color(engine.engine))\" />")
                    let headline = engine.latency.map { HumanReadable.duration(nanoseconds: $0.medianNanoseconds) }
                        ?? HumanReadable.duration(seconds: engine.seconds ?? 0)
                    parts.append("<text x=\(f(labelWidth + length + 4)) y=\(f(y + 11))>\(headline) (\(HumanReadable.ratio(ratio)))</text>")
                } else {
                    let label = engine.status == .ok ? "" : engine.status.rawValue
                    parts.append("<text x=\(f(labelWidth + 4)) y=\(f(y + 11)) fill=\"#cf222e\">\(escape(label))</text>")
                }
                y += rowHeight
            }
            y += 4
        }
        let svg = parts.joined().replacingOccurrences(of: "HEIGHT", with: f(y))
        return "<svg width=\(f(width)) height=\(f(y + 4)) viewBox=\"0 0 \(f(width)) \(f(y + 4))\" role=img>\(svg)</svg>"
    }

    // MARK: Latency

    /// x: percentile on a "nines" scale (0, 90, 99, 99.9, 99.99 evenly spaced); y: log latency.
    func latencyChart(_ result: BenchmarkResult) -> String {
        let width = 360.0
        let height = 220.0
        let left = 64.0
        let bottom = 30.0
        let top = 24.0
        let right = 22.0
        let series = result.engines.compactMap { engine in engine.latency.map { (engine.engine, $0.distribution, engine.peer == true) } }
        let values = series.flatMap { $0.1.map(\.nanoseconds) }.filter { $0 > 0 }
        guard let low = values.min(), let high = values.max() else { return "" }
        let lowDecade = floor(log10(low))
        let highDecade = max(lowDecade + 1, ceil(log10(high)))
        func x(_ percentile: Double) -> Double {
            let nines = min(4, -log10(max(1e-4, 1 - percentile / 100)))
            return left + (width - left - right) * nines / 4
        }
        func y(_ nanoseconds: Double) -> Double {
            let position = (log10(max(nanoseconds, 1)) - lowDecade) / (highDecade - lowDecade)
            return height - bottom - (height - bottom - top) * position
        }
        var parts = ["<text x=0 y=12 font-weight=600>\(escape(result.name))</text>"]
        for decade in Int(lowDecade)...Int(highDecade) {
            let value = pow(10, Double(decade))
            parts.append("<line class=grid x1=\(f(left)) y1=\(f(y(value))) x2=\(f(width - right)) y2=\(f(y(value))) />")
            parts.append("<text x=\(f(left - 4)) y=\(f(y(value) + 4)) text-anchor=end>\(HumanReadable.duration(nanoseconds: value))</text>")
        }
        for (label, percentile) in [("0", 0.0), ("90", 90), ("99", 99), ("99.9", 99.9), ("99.99", 99.99)] {
            parts.append("<text x=\(f(x(percentile))) y=\(f(height - bottom + 14)) text-anchor=middle>\(label)</text>")
        }
        parts.append("<text x=\(f((left + width) / 2)) y=\(f(height - 3)) text-anchor=middle>percentile</text>")
        parts.append("<line class=axis x1=\(f(left)) y1=\(f(height - bottom)) x2=\(f(width - right)) y2=\(f(height - bottom)) />")
        for (engine, points, peer) in series {
            let visible = points.filter { $0.percentile < 100 }
            let path = visible.map { "\(f(x($0.percentile))),\(f(y($0.nanoseconds)))" }.joined(separator: " ")
            parts.append("<polyline fill=none stroke=\"\(Self.color(engine))\" stroke-width=2\(peer ? " stroke-dasharray=\"5 3\"" : "") points=\"\(path)\" />")
            if let last = points.last {
                parts.append("<circle cx=\(f(width - right - 2)) cy=\(f(y(last.nanoseconds))) r=3 fill=\"\(Self.color(engine))\"><title>\(escape(engine)) max \(HumanReadable.duration(nanoseconds: last.nanoseconds))</title></circle>")
            }
        }
        return "<svg width=\(f(width)) height=\(f(height)) viewBox=\"0 0 \(f(width)) \(f(height))\" role=img>\(parts.joined())</svg>"
    }

    // MARK: Tables

    func table(_ table: ResultTable) -> String {
        var html = "<h3>\(escape(table.title))</h3><table><tr>" + table.header.map { "<th>\(escape($0))</th>" }.joined() + "</tr>"
        for row in table.rows {
            let wrong = row.count > 1 && (row[1] == "WRONG" || row[1] == "ERROR")
            html += "<tr>" + row.map { "<td\(wrong ? " class=wrong" : "")>\(escape($0))</td>" }.joined() + "</tr>"
        }
        html += "</table>"
        if !table.notes.isEmpty { html += "<ul>" + table.notes.map { "<li>\(escape($0))</li>" }.joined() + "</ul>" }
        return html
    }

    func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    func f(_ value: Double) -> String { String(format: "%.1f", value) }
}
