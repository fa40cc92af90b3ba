#!/bin/sh
# make demo: precise calling contexts in a recursive-descent expression
# parser (examples/encoders), its encoders tested in isolation, and the
# generator's own check of the four encodings on the example's call graph.
set -e
B=build
echo "-- expr: a '?' after a number prints the decoded calling context there"
$B/examples/encoders/expr
echo
echo "-- unit_test: after these calls the encoding decodes to exactly that path"
$B/examples/encoders/unit_test
echo
echo "-- ctxprof-gen stats examples/encoders/expr.callgraph"
$B/ctxprof-gen stats examples/encoders/expr.callgraph | head -8 | tr '\n' ' '
echo
echo
echo "-- ctxprof-gen check: 500 random call/return walks, every step decoded"
$B/ctxprof-gen check examples/encoders/expr.callgraph --walks 500 --depth 60 --seed 1 |
    grep -E '^(steps|decoded_|avg_words_|max_words_)' | tr '\n' ' '
echo
