#!/usr/bin/env python3
"""adblock-rust (Brave's engine, PyPI package `adblock`) as a peer engine of BlockBench's harness.

Driven by Sources/Engines/AdblockRustEngine.swift through a line protocol on stdin and
stdout: one JSON object a line in each direction, one answer per command, in order.

  {"op": "hello"}
      -> {"ok": true, "adblock": "0.6.0", "python": "3.11.7", "timerNanoseconds": 61}
  {"op": "build", "engine": "e1", "lists": ["<base64 ABP text>", ...]}
      -> {"ok": true, "seconds": 0.29, "bytes": 5123456, "rssGrowthBytes": 110000000}
  {"op": "match", "engines": ["e1", "e2"], "requests": [["url", "source url", "type"], ...]}
      -> {"ok": true, "blocked": [0, 1, ...], "nanoseconds": [812, 1190, ...]}
  {"op": "resident", "engines": ["e1", "e2"]}
      -> {"ok": true, "loadedBytes": 5123456, "residentBefore": ..., "residentAfter": ...,
          "anonymousBefore": ..., "anonymousAfter": ...}
  {"op": "drop", "engine": "e1"}
      -> {"ok": true}
  anything wrong -> {"ok": false, "error": "..."}

`build` adds every list to one FilterSet and makes one optimized Engine of it; `seconds` is that
work alone, timed here (decoding the base64 text and the pipe are outside it), `bytes` the length
of the engine's own serialization (made after the timed part) and `rssGrowthBytes` the growth of
this process's resident memory across the build.

`resident` writes each named engine's serialization to a file and has a fresh Python process
(this script with `--resident-after-load FILE...`) load them, each into an engine of its own with
`deserialize_from_file`, as a browser loads its lists: that process's resident memory (VmRSS) and
its anonymous part (RssAnon) from /proc/self/status, before the loads (the interpreter started,
adblock imported) and after them (the engines kept), and the files' bytes. glibc's allocator is
held still around the loads as `blockbench load` holds it (Sources/Engines/ResidentAfterLoad.swift):
its threshold for mapping a block fixed at its starting 128 KB before them (`mallopt`), the heaps'
free pages given back after them (`malloc_trim(0)`), so that what the loads freed is not counted.

`match` asks every named engine about each request, in order, and times each request here with
perf_counter_ns: the time from before the first engine's call to after the last one's, the
Python binding's calls included, the pipe excluded. A request is blocked when any engine's
result has `matched` (an exception filter clears it; adblock-rust applies `$important` itself).
`timerNanoseconds` in the hello is the median of timing an empty statement the same way: the
clock's own share of each figure.

`--version` prints the package's version and exits 0; without the package this script prints
"not run: pip install adblock" and exits 3, before reading anything.
"""

import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

try:
    import adblock
except ImportError:
    print("not run: pip install adblock (the adblock package is not installed for %s)" % sys.executable)
    sys.exit(3)

try:
    from importlib.metadata import version as _package_version

    VERSION = _package_version("adblock")
except Exception:  # an install without metadata
    VERSION = "unknown"


def resident_bytes():
    """This process's resident memory (Linux), or 0 where /proc is missing."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
        import resource

        return pages * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return 0


def status_bytes():
    """This process's (VmRSS, RssAnon) in bytes, from /proc/self/status."""
    fields = {}
    with open("/proc/self/status") as status:
        for line in status:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "RssAnon"):
                fields[name] = int(value.split()[0]) * 1024
    return fields["VmRSS"], fields["RssAnon"]


def glibc():
    """glibc's `mallopt` and `malloc_trim`, or None where the C library has none (not glibc)."""
    try:
        import ctypes

        library = ctypes.CDLL(None)
        return library.mallopt, library.malloc_trim
    except (OSError, AttributeError):
        return None


M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 128 << 10


def resident_after_load(paths):
    """Loads each serialized engine at `paths` into an engine of its own, in this fresh process."""
    allocator = glibc()
    if allocator:
        allocator[0](M_MMAP_THRESHOLD, MMAP_THRESHOLD)
    resident_before, anonymous_before = status_bytes()
    engines = []
    for path in paths:
        engine = adblock.Engine(adblock.FilterSet(debug=False), optimize=True)
        engine.deserialize_from_file(path)
        engines.append(engine)
    if allocator:
        allocator[1](0)
    resident_after, anonymous_after = status_bytes()
    return {
        "loadedBytes": sum(os.path.getsize(path) for path in paths),
        "residentBefore": resident_before,
        "residentAfter": resident_after,
        "anonymousBefore": anonymous_before,
        "anonymousAfter": anonymous_after,
    }


def resident(engines, command):
    folder = tempfile.mkdtemp(prefix="adblock-peer-")
    try:
        paths = []
        for index, name in enumerate(command["engines"]):
            paths.append(os.path.join(folder, "%d.dat" % index))
            engines[name].serialize_to_file(paths[-1])
        child = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--resident-after-load"] + paths,
            capture_output=True,
            text=True,
            check=False,
        )
        if child.returncode != 0:
            return {"ok": False, "error": "the loading process exited %d: %s" % (child.returncode, child.stderr.strip()[-300:])}
        answer = json.loads(child.stdout.strip().splitlines()[-1])
        answer["ok"] = True
        return answer
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def timer_nanoseconds():
    """The median of timing nothing, the way `match` times a request."""
    clock = time.perf_counter_ns
    samples = []
    for _ in range(10001):
        started = clock()
        samples.append(clock() - started)
    samples.sort()
    return samples[len(samples) // 2]


def build(engines, command):
    texts = [base64.b64decode(text).decode("utf-8", "replace") for text in command["lists"]]
    before = resident_bytes()
    started = time.perf_counter_ns()
    filters = adblock.FilterSet(debug=False)
    for text in texts:
        filters.add_filter_list(text)
    engine = adblock.Engine(filters, optimize=True)
    seconds = (time.perf_counter_ns() - started) / 1e9
    growth = resident_bytes() - before
    engines[command["engine"]] = engine
    return {"ok": True, "seconds": seconds, "bytes": len(engine.serialize()), "rssGrowthBytes": growth}


def match(engines, command):
    asked = [engines[name].check_network_urls for name in command["engines"]]
    clock = time.perf_counter_ns
    blocked = []
    nanoseconds = []
    if len(asked) == 1:
        check = asked[0]
        for url, source, kind in command["requests"]:
            started = clock()
            result = check(url, source, kind).matched
            elapsed = clock() - started
            blocked.append(1 if result else 0)
            nanoseconds.append(elapsed)
    else:
        for url, source, kind in command["requests"]:
            started = clock()
            results = [check(url, source, kind).matched for check in asked]
            elapsed = clock() - started
            blocked.append(1 if any(results) else 0)
            nanoseconds.append(elapsed)
    return {"ok": True, "blocked": blocked, "nanoseconds": nanoseconds}


def main():
    if sys.argv[1:] == ["--version"]:
        print(VERSION)
        return 0
    if sys.argv[1:2] == ["--resident-after-load"]:
        print(json.dumps(resident_after_load(sys.argv[2:])))
        return 0
    engines = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            command = json.loads(line)
            op = command.get("op")
            if op == "hello":
                answer = {
                    "ok": True,
                    "adblock": VERSION,
                    "python": sys.version.split()[0],
                    "timerNanoseconds": timer_nanoseconds(),
                }
            elif op == "build":
                answer = build(engines, command)
            elif op == "match":
                answer = match(engines, command)
            elif op == "resident":
                answer = resident(engines, command)
            elif op == "drop":
                engines.pop(command.get("engine"), None)
                answer = {"ok": True}
            else:
                answer = {"ok": False, "error": "unknown op %r" % (op,)}
        except KeyError as error:
            answer = {"ok": False, "error": "no engine or field %s" % error}
        except Exception as error:  # the harness reports it; the process stays up
            answer = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
        sys.stdout.write(json.dumps(answer, separators=(",", ":")) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
