#!/usr/bin/env bash
# Builds Benchmarks/Peers/WebKit/webkit-compile and Benchmarks/Peers/WebKit/webkit-view
# against WebKitGTK (webkit2gtk-4.1).
# Exit status 3 when the WebKitGTK development files are not installed.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pc=webkit2gtk-4.1

if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists "$pc"; then
    echo "build.sh: WebKitGTK development files ($pc) not found." >&2
    echo "  Install them (Debian, as root):" >&2
    echo "    apt-get update && apt-get install -y --no-install-recommends libwebkit2gtk-4.1-dev" >&2
    exit 3
fi

cc="${CC:-cc}"
for tool in webkit-compile webkit-view; do
    # shellcheck disable=SC2046
    "$cc" -std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter \
        -o "$here/$tool" "$here/$tool.c" \
        $(pkg-config --cflags --libs "$pc")
    echo "built $here/$tool (WebKitGTK $(pkg-config --modversion "$pc"))"
done
