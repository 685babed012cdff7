#!/usr/bin/env python3
"""The WebKit probes too big to commit as vectors: lists of 150,000 rules and more, around
WebKit's rule limit. Writes them as a vector file (each with WebKit's answer, measured with
WebKitGTK 2.50.6) in a temporary folder and runs

    blockbench conform --against webkit --rules kablock --vectors FILE   (WebKit and our validator)
    blockbench conform --vectors FILE                                    (our validator alone)

Usage, from the repository's root, after `swift build -c release`:
    python3 Benchmarks/Peers/WebKit/huge-lists.py [--blockbench PATH]
"""
import argparse, json, os, subprocess, sys, tempfile

ONE = '{"trigger":{"url-filter":"a"},"action":{"type":"block"}}'
BAD_TYPE = '{"trigger":{"url-filter":5},"action":{"type":"block"}}'
BAD_REGEX = '{"trigger":{"url-filter":"["},"action":{"type":"block"}}'
BAD_CSS = '{"trigger":{"url-filter":"a"},"action":{"type":"css-display-none","selector":"a["}}'


def rules(count, first=None, last=None):
    parts = [ONE] * count
    if first: parts[0] = first
    if last: parts[-1] = last
    return "[" + ",".join(parts) + "]"


# (test, rules, WebKit's error name or None, the failing pattern's status)
CASES = [
    ("150000 rules", rules(150000), None, None),
    ("150001 rules", rules(150001), "JSONTooManyRules", None),
    ("150001 rules, rule 0 url-filter 5", rules(150001, BAD_TYPE), "JSONTooManyRules", None),
    ("150001 rules, rule 0 url-filter [", rules(150001, BAD_REGEX), "JSONTooManyRules", None),
    ("150000 rules, rule 0 url-filter [", rules(150000, BAD_REGEX), "JSONInvalidRegex", "YarrError"),
    ("150000 rules, rule 0 url-filter 5", rules(150000, BAD_TYPE), "JSONInvalidURLFilterInTrigger", None),
    ("150002 rules, the last one 5", rules(150002, last="5"), "JSONTooManyRules", None),
    ("150000 rules, the last one 5", rules(150000, last="5"), "JSONInvalidRule", None),
    ("150001 rules, rule 0 css-display-none with a selector WebKit drops", rules(150001, BAD_CSS), "JSONTooManyRules", None),
    ("150000 distinct url-filters",
     json.dumps([{"trigger": {"url-filter": "ad%d\\.example" % i}, "action": {"type": "block"}} for i in range(150000)],
                separators=(",", ":")), None, None),
    ("20000 distinct css-display-none rules",
     json.dumps([{"trigger": {"url-filter": "ad%d\\.example" % i}, "action": {"type": "css-display-none", "selector": ".c%d" % i}}
                 for i in range(20000)], separators=(",", ":")), None, None),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blockbench", default=".build/release/blockbench")
    args = parser.parse_args()
    vectors = []
    for test, text, error, status in CASES:
        vector = {"test": "huge list: " + test, "rules": text, "expectedError": error}
        if status: vector["expectedPatternStatus"] = status
        vectors.append(vector)
    status = 0
    with tempfile.TemporaryDirectory(prefix="blockbench-huge-") as folder:
        path = os.path.join(folder, "huge-lists.json")
        with open(path, "w") as out:
            json.dump({"compilerErrorVectors": vectors}, out)
        for command in ([args.blockbench, "conform", "--against", "webkit", "--rules", "kablock", "--vectors", path],
                        [args.blockbench, "conform", "--vectors", path]):
            print("$ " + " ".join(command[:-1] + ["huge-lists.json"]), flush=True)
            status = max(status, subprocess.call(command))
    sys.exit(status)


if __name__ == "__main__":
    main()
