#!/bin/sh
# Issue 2, benchmark 2: query cost at depth 10, 20, 50.
set -e
B=${B:-build}
for b in pcc_query_gcc pcc_query_clang; do echo; "$B/bench/$b"; done
if [ -x "$B/bench/pcc_query_unwind" ]; then
    echo
    echo "with libunwind linked (its backtrace() replaces glibc's in this binary):"
    "$B/bench/pcc_query_unwind"
else
    echo
    echo "(libunwind-dev not installed: apt-get install libunwind-dev for the unw_backtrace column)"
fi
