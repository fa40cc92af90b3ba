#!/bin/sh
# PCC anomaly detection on minikv, a key-value command interpreter whose file
# accesses (open, read, write) are query points: train on two runs, merge the
# trained sets, check a normal run (silent) and a run that reaches a legacy
# feature (one report, with the backtrace of the new calling context).
# The runs work in a scratch directory (they save and load minikv-demo.db).
set -e
R=$(pwd)
B=$R/build/examples/anomaly
D=$R/examples/anomaly
T=$(mktemp -d "${TMPDIR:-/tmp}/ctxprof-anomaly.XXXXXX")
trap 'rm -rf "$T"' EXIT
cd "$T"
show() { printf '   input %s: %s\n' "$1" "$(tr '\n' ';' < "$D/$1" | sed 's/;$//; s/;/; /g')"; }

echo "-- training: run the test inputs with --train; each run saves the contexts its"
echo "   query points saw"
show train1.txt
"$B/minikv" --train run1.set "$D/train1.txt" > /dev/null
show train2.txt
"$B/minikv" --train run2.set "$D/train2.txt" > /dev/null
echo "-- the trained set is the union of the runs (ctxprof-set merge; info shows it)"
"$R/build/ctxprof-set" merge -o trained.set run1.set run2.set > /dev/null
"$R/build/ctxprof-set" info trained.set
echo "-- production (--check): other keys and values, the same code paths: no report"
show normal.txt
"$B/minikv" --check trained.set "$D/normal.txt" > /dev/null
echo "-- production: 'set x @/etc/hostname' stores a legacy indirect value; 'get x'"
echo "   then opens a file from a calling context no test reached: one report (the"
echo "   second 'get x' is the same context, so it is not reported again)"
show attack.txt
"$B/minikv" --check trained.set "$D/attack.txt" > /dev/null
