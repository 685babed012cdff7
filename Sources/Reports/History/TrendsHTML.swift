// TrendsHTML.swift — Reports
//
// The HTML of the history's pages (TrendsPage.swift): the index (what is drawn, a link per
// benchmark, the steps found, the failed gate runs) and a benchmark's page (its charts). Each is
// one self-contained file: no scripts, no external files.
//
// Tested by ReportsTests/TrendsPageTests.swift.

internal import Foundation

extension TrendsPage {
    static let style = """
        body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1180px;padding:0 16px;color:#1f2328}
        h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #d0d7de;padding-bottom:4px}
        code{font:12px ui-monospace,monospace;background:#f6f8fa;padding:1px 4px;border-radius:4px}.meta{color:#57606a}
        table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #d0d7de;padding:3px 7px;text-align:left}th{background:#f6f8fa}
        .grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:14px}
        svg text{font:11px system-ui,sans-serif;fill:#1f2328}svg .grid{stroke:#eaeef2;stroke-width:1}
        """

    static func document(title: String, body: [String]) -> String {
        "<!doctype html>\n<html lang=en><head><meta charset=utf-8><title>\(HTMLText.escape(title))</title>"
            + "<meta name=viewport content=\"width=device-width, initial-scale=1\"><style>\n\(style)\n</style></head><body>\n"
            + body.joined(separator: "\n") + "\n</body></html>\n"
    }

    /// What the pages draw: the machine, the runs, the other machines left out.
    var summary: String {
        guard let first = runs.first, let last = runs.last else { return "<p>No recorded runs yet.</p>" }
        let others = otherMachines == 0 ? "" : "; \(otherMachines) runs of other machines are not drawn"
        return "<p class=meta>\(runs.count) recorded runs on \(HTMLText.escape(last.machine)), \(HTMLText.escape(last.toolchain)) "
            + "(fingerprint <code>\(last.fingerprint)</code>), \(HTMLText.escape(first.date)) to \(HTMLText.escape(last.date))\(others). "
            + "Dashed: the gate's baseline; red ticks under the axis: gate runs that failed; orange: a step in a figure without an exact count "
            + "(Mann-Whitney U over the runs on each side: a step, not noise).</p>"
    }

    /// The index page.
    public func index() -> String {
        var body = ["<h1>BlockBench over its recorded runs</h1>", summary, "<h2>Benchmarks</h2><ul>"]
        body += benchmarks.map { "<li><a href=\"\(Self.file($0))\">\(HTMLText.escape($0))</a></li>" }
        body.append("</ul><h2>Steps in figures without an exact count</h2>")
        let steps = allSteps()
        if steps.isEmpty {
            body.append("<p>None: every such figure's moves are within its noise.</p>")
        } else {
            body.append("<table><tr><th>benchmark</th><th>engine</th><th>measure</th><th>from run</th><th>before</th><th>after</th><th>change</th><th>p</th></tr>")
            for (benchmark, engine, measure, step) in steps {
                let unit = HeadlineMeasures.all[measure]?.unit ?? ""
                let cells = [
                    benchmark, engine, measure, runLabels[step.index].label, TrendChart.label(step.before, unit: unit),
                    TrendChart.label(step.after, unit: unit), String(format: "%+.1f%%", step.change * 100), String(format: "%.1e", step.p),
                ]
                body.append("<tr>" + cells.map { "<td>\(HTMLText.escape($0))</td>" }.joined() + "</tr>")
            }
            body.append("</table>")
        }
        let failed = runs.filter { $0.gate == "regression" }
        body.append("<h2>Gate runs that failed</h2>")
        body.append(
            failed.isEmpty
                ? "<p>None.</p>" : "<ul>" + failed.map { "<li>\(HTMLText.escape($0.date)) <code>\(HTMLText.escape($0.revision))</code></li>" }.joined() + "</ul>")
        return Self.document(title: "BlockBench trends", body: body)
    }

    /// A benchmark's page.
    public func page(_ benchmark: String) -> String {
        let body = [
            "<p><a href=\"index.html\">all benchmarks</a></p>", "<h1>\(HTMLText.escape(benchmark))</h1>", summary,
            "<div class=grid>" + charts(benchmark).map(\.svg).joined(separator: "\n") + "</div>",
        ]
        return Self.document(title: "BlockBench trends: \(benchmark)", body: body)
    }
}
