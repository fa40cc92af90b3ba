#!/bin/sh
# make demo: profile the C parser over real C text (the system headers that
# ship with the C library and other -dev packages, C++ ones left out, and
# this repository's sources), print its hot calling contexts and write them
# as text, collapsed stacks, JSON and an SVG flame graph under build/examples/.
set -e
B=${B:-build}
files=$(grep -L -E '^[[:space:]]*(class|namespace|template)[[:space:]<]' \
        /usr/include/*.h /usr/include/*/bits/*.h 2>/dev/null || true)
files="$files $(ls ctxprof*.h tests/*.c bench/*.c examples/*/*.c tools/*.c 2>/dev/null || true)"
# shellcheck disable=SC2086
"$B/examples/hotpaths" -o "$B/examples/hotpaths" -p 2 $files
echo "open $B/examples/hotpaths.svg in a browser for the flame graph"
