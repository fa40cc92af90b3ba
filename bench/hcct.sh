#!/bin/sh
# make bench: the HCCT benchmarks. zipfwalk (100 M calls; every
# configuration in one process, medians of 3 rounds), its phase-change
# variant, what the placement of the code alone moves (zw_layout), then
# the C parser over real C text (the headers that come with
# the C library and other -dev packages, C++ ones left out, and this
# repository's sources).
set -e
B=${B:-build}
"$B/bench/zipfwalk" --rounds 3
echo
"$B/bench/zipfwalk" --rounds 1 --phase
echo
"$B/bench/zw_layout" --rounds 20
echo
files=$(grep -L -E '^[[:space:]]*(class|namespace|template)[[:space:]<]' \
        /usr/include/*.h /usr/include/*/bits/*.h 2>/dev/null || true)
files="$files $(ls ctxprof*.h tests/*.c bench/*.c examples/*/*.c tools/*.c 2>/dev/null || true)"
# shellcheck disable=SC2086
"$B/bench/cparse_bench" --rounds 3 -p 4 $files
