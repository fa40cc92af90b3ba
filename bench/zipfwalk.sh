#!/bin/sh
# make bench: zipfwalk (100 M calls, every configuration in one process,
# medians of 3 rounds), then its phase-change variant.
set -e
B=${B:-build}
"$B/bench/zipfwalk" --rounds 3
echo
"$B/bench/zipfwalk" --rounds 1 --phase
