#!/bin/sh
# make demo: precise calling contexts in a recursive-descent expression
# parser (examples/encoders), its encoders tested in isolation, and the
# generator's own check of the four encodings on the example's call graph.
set -e
B=build
G=examples/encoders/expr.callgraph
echo "-- expr: a recursive-descent parser annotated from $G"
echo "   (ctxprof-gen made its header); a '?' after a number prints the decoded"
echo "   calling context there, recursion included"
$B/examples/encoders/expr
echo
echo "-- unit_test: the encoders on an explicit state, no threads or globals: after"
echo "   these calls the encoding decodes to exactly that path, in every scheme"
$B/examples/encoders/unit_test
echo
echo "-- ctxprof-gen stats $G: the Valence paper's Table 1 columns"
$B/ctxprof-gen stats $G | awk -F= '
    { v[$1] = $2 }
    END { printf "   %s functions, %s call edges, %s components (%s recursive), %s cyclic edges\n",
              v["nodes"], v["edges"], v["sccs"], v["complex_sccs"], v["cyclic_edges"]
          printf "   bits of the acyclic id: pcce %s, valence %s, hcce %s, auto %s (the last three\n",
              v["pcce_bits"], v["valence_bits"], v["hcce_bits"], v["auto_bits"]
          print  "   condense each recursive component into one node; pcce numbers the paths"
          print  "   with the recursive calls cut)" }'
echo
echo "-- ctxprof-gen check $G --walks 500"
echo "   random call/return walks through the real encoders, every step decoded"
$B/ctxprof-gen check $G --walks 500 --depth 60 --seed 1 | awk -F= '
    { v[$1] = $2 }
    END { printf "   %s steps; decoded to the true path: pcce %s, valence %s, hcce %s, auto %s\n",
              v["steps"], v["decoded_pcce"], v["decoded_valence"], v["decoded_hcce"], v["decoded_auto"]
          printf "   encoding length in 64-bit words, mean (max): pcce %.2f (%s), valence %.2f (%s),\n",
              v["avg_words_pcce"], v["max_words_pcce"], v["avg_words_valence"], v["max_words_valence"]
          printf "   hcce %.2f (%s), auto %.2f (%s)\n",
              v["avg_words_hcce"], v["max_words_hcce"], v["avg_words_auto"], v["max_words_auto"] }'
