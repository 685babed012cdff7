#!/bin/bash -eu
# ClusterFuzzLite's build (https://google.github.io/clusterfuzzlite/): every libFuzzer entry of the
# package, with AddressSanitizer, into $OUT, each with its seed corpus ($OUT/NAME_seed_corpus.zip,
# .ci/fuzz-seeds) and dictionary ($OUT/NAME.dict, Corpora/fuzz/):
#   blockbench-fuzz-entry     patterns and generated cases against the PCRE2 oracle
#   blockbench-fuzz-rulelist  raw bytes into the rule-list JSON reader
#   blockbench-fuzz-compiled  raw bytes into the compiled-file loader and validator
#   blockbench-fuzz-requests  raw bytes into the request-set readers
# The Swift runtime and Foundation are linked statically and the system libraries the engine and
# the oracle load (libpsl, libidn2, libpcre2-8 and theirs) are copied to $OUT/lib, found through
# the binaries' rpath, since ClusterFuzzLite's runner image has neither.
#
# Also runs outside Docker, as .ci/fuzz-readers does on this repository's CI (it sets $OUT, $WORK
# and $SRC to temporary folders and BLOCKBENCH_FUZZ_SCRATCH to .build-fuzz, then fuzzes each
# binary briefly): that is its test. Needs swift, python3 and the packages of .ci/setup.
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
: "${OUT:?set OUT to the folder the fuzzers go to}"
: "${WORK:=$(mktemp -d)}"
scratch="${BLOCKBENCH_FUZZ_SCRATCH:-$WORK/blockbench-build}"
fuzzers="blockbench-fuzz-entry blockbench-fuzz-rulelist blockbench-fuzz-compiled blockbench-fuzz-requests"
flags=(-c release --sanitize fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DBLOCKBENCH_LIBFUZZER
    --static-swift-stdlib -Xlinker -rpath -Xlinker '$ORIGIN/lib' --scratch-path "$scratch")
for fuzzer in $fuzzers; do
    swift build "${flags[@]}" --product "$fuzzer"
done
bin="$(swift build "${flags[@]}" --show-bin-path)"
mkdir -p "$OUT/lib"
for fuzzer in $fuzzers; do
    cp "$bin/$fuzzer" "$OUT/$fuzzer"
done
# Shared libraries the runner image lacks: everything the binaries load but the C library's own.
ldd "$OUT"/blockbench-fuzz-* | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u \
    | grep -Ev '/(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|ld-linux[^/]*)\.so' \
    | while read -r library; do cp -L "$library" "$OUT/lib/"; done
seeds="$WORK/seeds"
rm -rf "$seeds"
.ci/fuzz-seeds "$seeds" "$OUT/blockbench-fuzz-compiled"
for fuzzer in $fuzzers; do
    rm -f "$OUT/${fuzzer}_seed_corpus.zip"
    (cd "$seeds/$fuzzer" && python3 -m zipfile -c "$OUT/${fuzzer}_seed_corpus.zip" .)
done
# Leak checking off: the Swift runtime keeps caches it never frees (type names, metadata), which
# LeakSanitizer reports as leaks of the input that first filled them.
for fuzzer in $fuzzers; do
    printf '[libfuzzer]\ndetect_leaks=0\n[asan]\ndetect_leaks=0\n' >"$OUT/$fuzzer.options"
done
cp Corpora/fuzz/rulelist.dict "$OUT/blockbench-fuzz-rulelist.dict"
cp Corpora/fuzz/compiled.dict "$OUT/blockbench-fuzz-compiled.dict"
cp Corpora/fuzz/requests.dict "$OUT/blockbench-fuzz-requests.dict"
