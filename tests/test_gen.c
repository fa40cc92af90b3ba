/* The generator: every parser error of both input formats, gcc .ci files
   made by compiling C sources during the test, merging a dynamic graph,
   C names, the golden header, generated headers compiled (C11 strict and
   C++11) and run, the call-site floor in the disassembly, the CLI, and a
   gcc-sized synthetic graph. Uses the pcce_* helpers. */

#include <dirent.h>

/* A C compiler that has -fcallgraph-info (gcc), or NULL. */
static const char *gen_ci_cc(void)
{
    static const char *cc = NULL;
    static int probed = 0;
    if (!probed) {
        const char *d = ctxprof_test_tmpdir();
        probed = 1;
        if (ctxprof_test_sh("cd %s && echo 'int main(void){return 0;}' > probe.c && %s "
                            "-fcallgraph-info=su -c probe.c -o probe.o 2>/dev/null",
                            d, CTXPROF_TEST_CC) == 0)
            cc = CTXPROF_TEST_CC;
        else if (ctxprof_test_sh("cd %s && gcc -fcallgraph-info=su -c probe.c -o probe.o "
                                 "2>/dev/null",
                                 d) == 0)
            cc = "gcc";
    }
    return cc;
}

static int gen_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

/* The text of the file d/name, NUL-terminated, from malloc, or NULL if it
   cannot be read; its length goes to *len unless len is NULL. */
static char *gen_read(const char *d, const char *name, size_t *len)
{
    char path[600];
    size_t n;
    snprintf(path, sizeof path, "%s/%s", d, name);
    return (char *)ctxprof_test_slurp(path, len ? len : &n);
}

/* CR LF line ends read as LF ones (the CR is a blank); CR alone is refused
   as such (gen_text_errors), not as "unsupported version '1'". */
static void gen_text_crlf(void)
{
    ctxprof_graph g;
    const char *text = "ctxprof-callgraph 1\r\nroot main\r\ncall main a site=s1\r\n"
                       "call a b\r \r\n";
    ctxprof_graph_init(&g, NULL);
    CHECK_EQ(ctxprof_graph_parse(&g, text, strlen(text), "crlf.txt"), CTXPROF_OK);
    CHECK_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
    CHECK_EQ(g.n_nodes, 3);
    CHECK_EQ(g.n_edges, 2);
    CHECK_STR(g.edges[0].label, "s1");
    ctxprof_graph_deinit(&g);
}

/* Each malformed text input fails with its file:line message and leaves
   the graph as it was. */
static void gen_text_errors(void)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"", "t.txt: empty input"},
        {"# only a comment\n\n", "t.txt: empty input"},
        {"hello 1\n", "t.txt:1: not a call graph"},
        {"ctxprof-callgraph 2\n", "t.txt:1: unsupported call graph version '2'"},
        {"ctxprof-callgraph\n", "t.txt:1: unsupported call graph version ''"},
        {"ctxprof-callgraph 1 x\n", "t.txt:1: unexpected 'x' after 'ctxprof-callgraph 1'"},
        {"ctxprof-callgraph 1 extra\nroot main\n",
         "t.txt:1: unexpected 'extra' after 'ctxprof-callgraph 1' (the first line is"},
        /* CR line ends: one line to the reader */
        {"ctxprof-callgraph 1\rroot main\rcall main a\r",
         "t.txt:1: lines end in CR alone (old Mac OS line ends): convert them to LF"},
        {"ctxprof-callgraph 1\ncal main f\n", "t.txt:2: unknown keyword 'cal'"},
        {"ctxprof-callgraph 1\nroot\n", "t.txt:2: root needs a function name"},
        {"ctxprof-callgraph 1\nroot a b\n", "t.txt:2: unexpected 'b' after the root name"},
        {"ctxprof-callgraph 1\nroot main\n# x\nroot main\n",
         "t.txt:4: second root line (the first is line 2)"},
        {"ctxprof-callgraph 1\nfunc\n", "t.txt:2: func needs a function name"},
        {"ctxprof-callgraph 1\nfunc f frame=12x\n", "t.txt:2: bad frame size '12x'"},
        {"ctxprof-callgraph 1\nfunc f color=3\n", "t.txt:2: unknown attribute 'color=3'"},
        {"ctxprof-callgraph 1\ncall a\n", "t.txt:2: call needs a caller and a callee"},
        {"ctxprof-callgraph 1\ncall a b x=1\n", "t.txt:2: unknown attribute 'x=1'"},
        {"ctxprof-callgraph 1\ncall a b site=\n", "t.txt:2: empty site label"},
        {"ctxprof-callgraph 1\ncall a b site=x site=\n", "t.txt:2: empty site label"},
        {"ctxprof-callgraph 1\ncall a b\ncall b c\ncall a b\n",
         "t.txt:4: duplicate edge a -> b (first at line 2"},
        {"ctxprof-callgraph 1\ncall a b site=s1\ncall a b site=s1\n",
         "t.txt:3: duplicate edge a -> b site=s1 (first at line 2"},
        {"ctxprof-callgraph 1\nroot zz\ncall a b\n",
         "t.txt:2: root 'zz' conflicts with root 'main'"},
        {"ctxprof-callgraph 1\ncall a b site=x site=y\n",
         "t.txt:2: second site= ('y' after site=x)"},
        /* the one name rule: no control character (nor via an escape) */
        {"ctxprof-callgraph 1\ncall a b\x01\n",
         "t.txt:2: function name 'b\\x01' holds a control character"},
        {"ctxprof-callgraph 1\ncall a b site=x\x0b\n",
         "t.txt:2: site label 'x\\x0b' holds a control character"},
        {"ctxprof-callgraph 1\nfunc a\x7f\n", "t.txt:2: function name 'a\\x7f' holds a control"},
        /* a NUL byte would cut the line short: "call a" + "b c" */
        {"ctxprof-callgraph 1\ncall a\0b c\n", "t.txt:2:7: NUL byte in the input"},
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ctxprof_graph g;
        size_t nn, ne;
        REQUIRE(pcce_graph_text(&g, "ctxprof-callgraph 1\nroot main\ncall main f\nfunc f "
                                    "frame=32\n") == 0);
        nn = g.n_nodes;
        ne = g.n_edges;
        size_t len = strlen(bad[i].text);
        if (strstr(bad[i].msg, "NUL"))
            len += 1 + strlen(bad[i].text + len + 1);
        CHECK(ctxprof_graph_parse(&g, bad[i].text, len, "t.txt") != CTXPROF_OK);
        CHECK_CONTAINS(ctxprof_graph_last_error(&g), bad[i].msg);
        /* nothing of the bad input stays */
        CHECK_EQ(g.n_nodes, nn);
        CHECK_EQ(g.n_edges, ne);
        CHECK_EQ(ctxprof_graph_find(&g, "a"), -1);
        CHECK_EQ(g.nodes[pcce_node(&g, "f")].frame, 32);
        CHECK_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
        CHECK_STR(g.nodes[g.root].name, "main");
        ctxprof_graph_deinit(&g);
    }
    /* a bad input after a good one that changed existing entries */
    {
        ctxprof_graph g;
        const char *text = "ctxprof-callgraph 1\nfunc f frame=99\ncall main f site=L\n"
                           "call f new1\nbogus\n";
        REQUIRE(pcce_graph_text(&g, "ctxprof-callgraph 1\ncall main f\n") == 0);
        CHECK(ctxprof_graph_parse(&g, text, strlen(text), "u.txt") == CTXPROF_ERR_PARSE);
        CHECK_CONTAINS(ctxprof_graph_last_error(&g), "u.txt:5: unknown keyword 'bogus'");
        CHECK_EQ(g.nodes[pcce_node(&g, "f")].frame, 0);  /* frame restored */
        CHECK(g.edges[0].label == NULL);                /* adopted label undone */
        CHECK_EQ(ctxprof_graph_find(&g, "new1"), -1);
        CHECK_EQ(ctxprof_graph_add_edge(&g, "f", "new1", NULL), 1); /* ids reused cleanly */
        CHECK_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
        ctxprof_graph_deinit(&g);
    }
    /* finish errors */
    {
        ctxprof_graph g;
        ctxprof_graph_desc d;
        const char *text;
        ctxprof_graph_init(&g, NULL);
        CHECK_EQ(ctxprof_graph_finish(&g), CTXPROF_ERR_PARSE);
        CHECK_CONTAINS(ctxprof_graph_last_error(&g), "empty call graph");
        text = "ctxprof-callgraph 1\ncall a b\n";
        CHECK_EQ(ctxprof_graph_parse(&g, text, strlen(text), "v.txt"), CTXPROF_OK);
        CHECK_EQ(ctxprof_graph_finish(&g), CTXPROF_ERR_PARSE);
        CHECK_CONTAINS(ctxprof_graph_last_error(&g), "missing root");
        ctxprof_graph_deinit(&g);
        memset(&d, 0, sizeof d);
        d.root = "nosuch";
        ctxprof_graph_init(&g, &d);
        text = "ctxprof-callgraph 1\nroot a\ncall a b\n";
        CHECK_EQ(ctxprof_graph_parse(&g, text, strlen(text), "w.txt"), CTXPROF_OK);
        CHECK_EQ(ctxprof_graph_finish(&g), CTXPROF_ERR_PARSE);
        CHECK_STR(ctxprof_graph_last_error(&g),
                  "root 'nosuch' is not a function of the call graph"); /* once */
        ctxprof_graph_deinit(&g);
    }
    {
        ctxprof_graph g;
        ctxprof_graph_init(&g, NULL);
        CHECK_EQ(ctxprof_graph_load(&g, "/nonexistent/graph.txt"), CTXPROF_ERR_SYS);
        CHECK_CONTAINS(ctxprof_graph_last_error(&g), "/nonexistent/graph.txt");
        ctxprof_graph_deinit(&g);
    }
}

/* Each malformed VCG input fails with its file:line:col message. */
static void gen_vcg_errors(void)
{
    static const struct {
        const char *text, *msg;
    } bad[] = {
        {"graph: { title: \"a.c\n", "x.ci:1:17: unterminated string"},
        {"graph: { /* note\n", "unterminated comment"},
        {"graph: { node: { label: \"f\" } }", "x.ci:1:16: node without a title"},
        {"graph: { edge: { targetname: \"f\" } }", "x.ci:1:16: edge without sourcename"},
        {"graph: { edge: { sourcename: \"f\" } }", "x.ci:1:16: edge without targetname"},
        {"grape: { }", "x.ci:1: not a call graph"},
        {"graph: { } grape: { }", "x.ci:1:12: unknown keyword 'grape' (expected graph)"},
        {"graph: { nodes: { title: \"f\" } }",
         "x.ci:1:10: unknown keyword 'nodes' (expected graph, node or edge)"},
        {"graph: { title \"a\" }", "x.ci:1:16: expected ':' after 'title', got a string"},
        {"graph: { node: { title: \"f\" }\n", "x.ci:2:1: unexpected end of input (missing '}'"},
        {"graph: { node: { title: { } } }", "x.ci:1:25: unexpected '{' inside a node or edge"},
        {"graph: { title: }", "x.ci:1:17: expected a value after 'title:', got '}'"},
        {"graph: { \"x\" }", "x.ci:1:10: unexpected a string"},
        {"graph: { } }", "x.ci:1:12: unexpected '}'"},
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ctxprof_graph g;
        REQUIRE(pcce_graph_text(&g, "ctxprof-callgraph 1\ncall main f\n") == 0);
        CHECK(ctxprof_graph_parse(&g, bad[i].text, strlen(bad[i].text), "x.ci") != CTXPROF_OK);
        CHECK_CONTAINS(ctxprof_graph_last_error(&g), bad[i].msg);
        CHECK_EQ(g.n_nodes, 2);
        CHECK_EQ(g.n_edges, 1);
        ctxprof_graph_deinit(&g);
    }
    /* a well-formed one with comments, bare words and other VCG edge kinds */
    {
        ctxprof_graph g;
        const char *ok = "// gcc\ngraph: { title: \"t.c\" layout: dfs\n"
                         "node: { title: \"main\" label: \"main\\nt.c:1:5\\n64 bytes (static)\" }\n"
                         "/* c */ nearedge: { sourcename: main targetname: \"lib\" label: "
                         "\"t.c:2:3\" color: red }\n"
                         "node: { title: \"lib\" label: \"lib\\n/usr/include/x.h:3:1\" shape : "
                         "ellipse }\n}\n";
        ctxprof_graph_init(&g, NULL);
        REQUIRE_EQ(ctxprof_graph_parse(&g, ok, strlen(ok), "t.ci"), CTXPROF_OK);
        REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
        CHECK_EQ(g.n_edges, 1);
        CHECK_STR(g.edges[0].label, "t.c:2:3");
        CHECK_EQ(g.nodes[pcce_node(&g, "main")].frame, 64);
        CHECK_STR(g.nodes[pcce_node(&g, "main")].where, "t.c:1:5");
        CHECK(g.nodes[pcce_node(&g, "lib")].flags & CTXPROF_GRAPH_NODE_EXTERN);
        CHECK(!(g.nodes[pcce_node(&g, "main")].flags & CTXPROF_GRAPH_NODE_EXTERN));
        ctxprof_graph_deinit(&g);
    }
}

static char gen_log_text[2000];
static void gen_test_log(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    snprintf(gen_log_text + strlen(gen_log_text), sizeof gen_log_text - strlen(gen_log_text),
             "%s\n", msg);
}

/* Real .ci files: two translation units compiled during the test, with
   same-named static functions, recursion, an extern and a call through a
   pointer; then a dynamic graph supplies the pointer's target. */
static void gen_gcc_ci(void)
{
    const char *cc = gen_ci_cc(), *d = ctxprof_test_tmpdir();
    char path[600], pa[600], pb[600];
    ctxprof_graph g;
    ctxprof_graph_desc desc;
    ctxprof_enc_check_result r;
    long ha, hb;
    size_t e, labelled = 0;
    if (!cc)
        SKIP("no compiler with -fcallgraph-info=su");
    snprintf(path, sizeof path, "%s/ci_a.c", d);
    REQUIRE(gen_write(path, "#include <stdio.h>\n"
                            "static int helper(int x) { return x > 0 ? helper(x - 1) + 1 : 0; }\n"
                            "int tree(int d);\n"
                            "int apply(int (*fp)(int), int x) { return fp(x); }\n"
                            "int main(void) { printf(\"%d\\n\", helper(3) + tree(4) + "
                            "apply(tree, 2)); return 0; }\n") == 0);
    snprintf(path, sizeof path, "%s/ci_b.c", d);
    REQUIRE(gen_write(path, "static int helper(int x) { return x * 2; }\n"
                            "int leaf(int x);\n"
                            "int tree(int d) { if (d <= 0) return leaf(d); return tree(d - 1) + "
                            "tree(d - 2) + helper(d); }\n"
                            "int leaf(int x) { return x + 1; }\n") == 0);
    REQUIRE_EQ(ctxprof_test_sh("cd %s && %s -O0 -fcallgraph-info=su -c ci_a.c ci_b.c", d, cc), 0);
    snprintf(pa, sizeof pa, "%s/ci_a.ci", d);
    snprintf(pb, sizeof pb, "%s/ci_b.ci", d);
    memset(&desc, 0, sizeof desc);
    desc.log = gen_test_log;
    gen_log_text[0] = '\0';
    ctxprof_graph_init(&g, &desc);
    REQUIRE_EQ(ctxprof_graph_load(&g, pa), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_graph_load(&g, pb), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
    CHECK_STR(g.nodes[g.root].name, "main"); /* no root line: main */
    ha = ctxprof_graph_find(&g, "ci_a.c:helper");
    hb = ctxprof_graph_find(&g, "ci_b.c:helper");
    REQUIRE(ha >= 0 && hb >= 0);
    /* the two static helpers keep apart; their C names say which file */
    CHECK_STR(g.nodes[ha].cname, "ci_a_c_helper");
    CHECK_STR(g.nodes[hb].cname, "ci_b_c_helper");
    CHECK(g.nodes[pcce_node(&g, "tree")].frame > 0); /* defined in ci_b.c */
    CHECK(!(g.nodes[pcce_node(&g, "tree")].flags & CTXPROF_GRAPH_NODE_EXTERN));
    CHECK(g.nodes[pcce_node(&g, "printf")].flags & CTXPROF_GRAPH_NODE_EXTERN);
    CHECK_EQ(g.n_complex_sccs, 2); /* helper(a) and tree recurse */
    CHECK_EQ(g.n_indirect, 1);
    CHECK_EQ(g.n_indirect_open, 1);
    CHECK_CONTAINS(gen_log_text, "apply (ci_a.c:4:");
    for (e = 0; e < g.n_edges; e++)
        if (g.edges[e].label && strncmp(g.edges[e].label, "ci_", 3) == 0)
            labelled++;
    CHECK_EQ(labelled, g.n_edges);
    {
        /* tree calls itself from two sites: sites 0 and 1 */
        uint32_t t = pcce_node(&g, "tree");
        CHECK(pcce_edge(&g, "tree", "tree", 1) != UINT32_MAX);
        CHECK_EQ(g.edges[pcce_edge(&g, "tree", "tree", 0)].caller, t);
    }
    /* a training run's dynamic graph: apply called tree through the pointer */
    snprintf(path, sizeof path, "%s/dyn.txt", d);
    REQUIRE(gen_write(path, "ctxprof-callgraph 1\ncall apply tree\ncall main apply\n") == 0);
    REQUIRE_EQ(ctxprof_graph_load(&g, path), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
    CHECK_EQ(g.n_indirect_open, 0);
    CHECK(pcce_edge(&g, "apply", "tree", 0) != UINT32_MAX);
    CHECK(pcce_edge(&g, "main", "apply", 1) == UINT32_MAX); /* merged with gcc's edge */
    CHECK_EQ(g.edges[pcce_edge(&g, "main", "apply", 0)].flags &
                 (CTXPROF_GRAPH_EDGE_GCC | CTXPROF_GRAPH_EDGE_TEXT),
             CTXPROF_GRAPH_EDGE_GCC | CTXPROF_GRAPH_EDGE_TEXT);
    /* names a training run saw: "helper" is static in both files
       (ambiguous: warned, skipped), "leaf2" is in no static graph (warned,
       added); neither silently becomes a phantom node "helper" */
    snprintf(path, sizeof path, "%s/dyn2.txt", d);
    REQUIRE(gen_write(path, "ctxprof-callgraph 1\ncall tree leaf\ncall main helper\n"
                            "call leaf leaf2\n") == 0);
    gen_log_text[0] = '\0';
    REQUIRE_EQ(ctxprof_graph_load(&g, path), CTXPROF_OK);
    CHECK_CONTAINS(gen_log_text, "dyn2.txt:3: 'helper' is ambiguous: static in more than one "
                                 "file (ci_a.c:helper, ci_b.c:helper)");
    CHECK_CONTAINS(gen_log_text, "dyn2.txt:4: 'leaf2' is not a function of the static call graph");
    for (e = 0; e < g.n_nodes; e++)
        CHECK(strcmp(g.nodes[e].name, "helper") != 0);
    REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
    CHECK(pcce_edge(&g, "leaf", "leaf2", 0) != UINT32_MAX);
    pcce_check_all(&g, 100, 40, 9, &r);
    ctxprof_graph_deinit(&g);
    {
        /* a static name defined once resolves to gcc's node, also a clone
           ("m.c:solo.part.0" is "solo.part.0" and "solo") */
        const char *vcg = "graph: { title: \"m.c\"\n"
                          "node: { title: \"main\" label: \"main\\nm.c:1:5\" }\n"
                          "node: { title: \"m.c:solo.part.0\" label: \"solo.part.0\\nm.c:2:12\" }\n"
                          "edge: { sourcename: \"main\" targetname: \"m.c:solo.part.0\" "
                          "label: \"m.c:1:20\" }\n}\n";
        const char *dyn = "ctxprof-callgraph 1\ncall solo leaf\ncall main solo.part.0\n";
        ctxprof_graph_init(&g, &desc);
        REQUIRE_EQ(ctxprof_graph_parse(&g, vcg, strlen(vcg), "m.ci"), CTXPROF_OK);
        REQUIRE_EQ(ctxprof_graph_parse(&g, dyn, strlen(dyn), "dyn3.txt"), CTXPROF_OK);
        CHECK_EQ(ctxprof_graph_find(&g, "solo"), -1);
        REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
        CHECK(pcce_edge(&g, "m.c:solo.part.0", "leaf", 0) != UINT32_MAX);
        CHECK_EQ(g.n_edges, 2); /* main -> solo merged with gcc's edge */
        ctxprof_graph_deinit(&g);
    }
    {
        /* an input that fails after resolving names takes its nodes back
           out of the index of static names too: the statics a later gcc
           input puts at the ids it freed still resolve */
        const char *a = "graph: { title: \"a.c\"\n"
                        "node: { title: \"main\" label: \"main\\na.c:1:5\" }\n}\n";
        const char *bad = "ctxprof-callgraph 1\ncall main newf\ncall main newg\nbogus\n";
        const char *b = "graph: { title: \"b.c\"\n"
                        "node: { title: \"b.c:s2\" label: \"s2\\nb.c:2:12\" }\n"
                        "node: { title: \"b.c:s3\" label: \"s3\\nb.c:3:12\" }\n}\n";
        const char *dyn = "ctxprof-callgraph 1\ncall main s2\n";
        ctxprof_graph_init(&g, &desc);
        REQUIRE_EQ(ctxprof_graph_parse(&g, a, strlen(a), "a.ci"), CTXPROF_OK);
        CHECK(ctxprof_graph_parse(&g, bad, strlen(bad), "bad.txt") != CTXPROF_OK);
        REQUIRE_EQ(ctxprof_graph_parse(&g, b, strlen(b), "b.ci"), CTXPROF_OK);
        REQUIRE_EQ(ctxprof_graph_parse(&g, dyn, strlen(dyn), "dyn4.txt"), CTXPROF_OK);
        CHECK_EQ(ctxprof_graph_find(&g, "s2"), -1); /* b.c:s2, not a new node */
        CHECK_EQ(g.n_nodes, 3);
        ctxprof_graph_deinit(&g);
    }
}

/* Names: C names are identifiers and unique; unreachable functions become
   extra entry points with a warning; the text writer round-trips. */
static void gen_names_and_roots(void)
{
    ctxprof_graph g, h;
    ctxprof_graph_desc desc;
    char *out = NULL;
    size_t len = 0, v;
    const char *text = "ctxprof-callgraph 1\nroot main\ncall main a.b\ncall main a_b\n"
                       "call a.b 9lives\nfunc thread_fn frame=128\ncall thread_fn a_b\n"
                       "call cb1 cb2\ncall cb2 cb1\ncall main x site=file.c:3:4\n";
    memset(&desc, 0, sizeof desc);
    desc.log = gen_test_log;
    gen_log_text[0] = '\0';
    ctxprof_graph_init(&g, &desc);
    REQUIRE_EQ(ctxprof_graph_parse(&g, text, strlen(text), "n.txt"), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
    CHECK_STR(g.nodes[pcce_node(&g, "9lives")].cname, "_9lives");
    CHECK_STR(g.nodes[pcce_node(&g, "a.b")].cname, "a_b_2");
    CHECK_STR(g.nodes[pcce_node(&g, "a_b")].cname, "a_b");
    for (v = 0; v < g.n_nodes; v++) {
        size_t w;
        for (w = v + 1; w < g.n_nodes; w++)
            CHECK(strcmp(g.nodes[v].cname, g.nodes[w].cname) != 0);
    }
    /* thread_fn and the cb1/cb2 cycle are not reachable: two extra roots */
    CHECK_EQ(g.n_unreachable, 3);
    CHECK_EQ(g.n_roots, 3);
    CHECK_STR(g.nodes[g.roots[1]].name, "thread_fn");
    CHECK(g.nodes[pcce_node(&g, "cb1")].flags & CTXPROF_GRAPH_NODE_ROOT);
    CHECK_CONTAINS(gen_log_text, "3 functions are not reachable from the root 'main'");
    /* each entry point with its place in the input: the func line, or the
       first call edge */
    CHECK_CONTAINS(gen_log_text, "2 extra entry points (thread_fn at n.txt:6, cb1 at n.txt:8)");
    {
        ctxprof_enc_check_result r;
        pcce_check_all(&g, 160, 20, 1, &r); /* walks also start at the extra roots */
    }
    REQUIRE_EQ(ctxprof_graph_write(&g, &out, &len), CTXPROF_OK);
    REQUIRE(pcce_graph_text(&h, out) == 0);
    CHECK_EQ(h.n_nodes, g.n_nodes);
    CHECK_EQ(h.n_edges, g.n_edges);
    CHECK_EQ(h.nodes[pcce_node(&h, "thread_fn")].frame, 128);
    CHECK_STR(h.edges[pcce_edge(&h, "main", "x", 0)].label, "file.c:3:4");
    ctxprof_graph_free_buffer(out, NULL);
    ctxprof_graph_deinit(&h);
    ctxprof_graph_deinit(&g);
    /* u__v -> w and u -> v__w would both be u__v__w__0: another separator
       (gen_names_double_underscore builds and runs such a header) */
    {
        ctxprof_error err;
        char *hdr = NULL;
        REQUIRE(pcce_graph_text(&g, "ctxprof-callgraph 1\nroot main\ncall main u__v\n"
                                    "call u__v w\ncall main u\ncall u v__w\n") == 0);
        REQUIRE_EQ(ctxprof_enc_emit(&g, NULL, &hdr, &len, &err), CTXPROF_OK);
        CHECK_CONTAINS(hdr, "ctxprof_gen_e_u__v_1_w_1_0 = 1,");
        CHECK_CONTAINS(hdr, "ctxprof_gen_e_u_1_v__w_1_0 = 3,");
        CHECK_CONTAINS(hdr, "#define CTXPROF_GEN_EDGE(caller, callee, site) "
                            "caller##_1_##callee##_1_##site\n");
        ctxprof_graph_free_buffer(hdr, NULL);
        ctxprof_graph_deinit(&g);
    }
}

/* A graph whose acyclic contexts overflow a 64-bit id: layers of two
   functions each calling both of the next layer, so layer i has 2^i
   contexts. With 66 layers a65 has 2^65: the generator names it, where it
   is, the bits its ids need and that Valence's id has no such limit (its
   levels: one edge-code bit per layer, 65). 64 layers fit: no warning. */
static void gen_overflow_warning(void)
{
    unsigned layers;
    for (layers = 64; layers <= 66; layers += 2) {
        char *text = (char *)malloc(65536), *hdr = NULL;
        size_t used = 0, len;
        unsigned i, x, y;
        ctxprof_graph g;
        ctxprof_graph_desc desc;
        ctxprof_enc_emit_desc ed;
        ctxprof_error err;
        REQUIRE(text != NULL);
        used += (size_t)snprintf(text, 65536, "ctxprof-callgraph 1\nroot main\n");
        for (i = 0; i < layers; i++)
            for (x = 0; x < 2; x++)
                for (y = 0; y < 2; y++)
                    if (i == 0 && x == 0)
                        used +=
                            (size_t)snprintf(text + used, 65536 - used, "call main %c0\n", 'a' + y);
                    else if (i > 0)
                        used += (size_t)snprintf(text + used, 65536 - used, "call %c%u %c%u\n",
                                                 'a' + x, i - 1, 'a' + y, i);
        memset(&desc, 0, sizeof desc);
        desc.log = gen_test_log;
        gen_log_text[0] = '\0';
        ctxprof_graph_init(&g, &desc);
        REQUIRE_EQ(ctxprof_graph_parse(&g, text, used, "ovf.txt"), CTXPROF_OK);
        REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
        memset(&ed, 0, sizeof ed);
        ed.default_scheme = CTXPROF_ENC_PCCE;
        REQUIRE_EQ(ctxprof_enc_emit(&g, &ed, &hdr, &len, &err), CTXPROF_OK);
        if (layers == 64) {
            CHECK_STR(gen_log_text, "");
        } else {
            /* a65's first call edge, "call a64 a65", is on line 4 * 65 + 1 */
            CHECK_CONTAINS(gen_log_text, "pcce: 'a65' at ovf.txt:261 has too many acyclic "
                                         "contexts for a 64-bit id (ids of 65 bits;");
            CHECK_CONTAINS(gen_log_text, "Valence's multi-word id has no such limit: 65 bits");
        }
        { /* stats and check say so too */
            ctxprof_enc_stats st;
            ctxprof_enc_check_desc cd;
            ctxprof_enc_check_result r;
            gen_log_text[0] = '\0';
            REQUIRE_EQ(ctxprof_enc_stats_compute(&g, &st, &err), CTXPROF_OK);
            CHECK(layers == 64 ? !strstr(gen_log_text, "pcce: 'a65'")
                               : strstr(gen_log_text, "pcce: 'a65' at ovf.txt:261") != NULL);
            gen_log_text[0] = '\0';
            memset(&cd, 0, sizeof cd);
            cd.walks = 2;
            REQUIRE_EQ(ctxprof_enc_check(&g, &cd, &r, &err), CTXPROF_OK);
            CHECK(layers == 64 ? !strstr(gen_log_text, "pcce: 'a65'")
                               : strstr(gen_log_text, "pcce: 'a65' at ovf.txt:261") != NULL);
        }
        ctxprof_graph_free_buffer(hdr, NULL);
        ctxprof_graph_deinit(&g);
        free(text);
    }
}

/* The header for Figure 3 with all four schemes is byte-identical to the
   reviewed golden file, and to a second run. */
static void gen_golden(void)
{
    ctxprof_graph g;
    ctxprof_enc_emit_desc d;
    ctxprof_error err;
    const char *inputs[1] = {"tests/data/fig3.txt"};
    char *a = NULL, *b = NULL, *golden = NULL;
    size_t la = 0, lb = 0, lg = 0;
    REQUIRE(pcce_graph_file(&g, "tests/data/fig3.txt") == 0);
    memset(&d, 0, sizeof d);
    d.inputs = inputs;
    d.n_inputs = 1;
    d.guard = "FIG3_CTX_H_INCLUDED";
    d.schemes = 0x1E;
    REQUIRE_EQ(ctxprof_enc_emit(&g, &d, &a, &la, &err), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_enc_emit(&g, &d, &b, &lb, &err), CTXPROF_OK);
    CHECK_EQ(la, lb);
    CHECK(la == lb && memcmp(a, b, la) == 0);
    REQUIRE_EQ(ctxprof__read_file("tests/data/fig3_ctx.h", &golden, &lg, NULL, &err), CTXPROF_OK);
    CHECK_EQ(la, lg);
    CHECK(la == lg && memcmp(a, golden, la) == 0);
    if (la != lg || memcmp(a, golden, la) != 0) {
        FILE *f = fopen("build/test/fig3_ctx.h.new", "w");
        if (f) {
            fwrite(a, 1, la, f);
            fclose(f);
        }
        fprintf(stderr, "  differs from tests/data/fig3_ctx.h: see build/test/fig3_ctx.h.new\n");
    }
    /* Figure 3: three-bit Valence codes; E -> F is cyclic edge 3 (D-G, G-J, J-D, E-F) */
    CHECK_CONTAINS(a, "#define ctxprof_gen_c_E__F__0_valence(st, ...) "
                      "CTXPROF_VAL_CALL_PUSH(st, CTXPROF_GEN_VALENCE_BASE, 3, 3u, __VA_ARGS__)");
    CHECK_CONTAINS(a, "#define CTXPROF_GEN_VALENCE_BASE");
    CHECK_CONTAINS(a, "#if CTXPROF_CTX_BITS != 64");
    free(golden);
    ctxprof_graph_free_buffer(a, NULL);
    ctxprof_graph_free_buffer(b, NULL);
    ctxprof_graph_deinit(&g);
}

/* The generated header compiles with the strict warning set as C11 and as
   C++11; a program that calls through its macros in real recursive
   functions decodes its own context with the header's tables in every
   scheme; a CTXPROF_CTX_BITS mismatch is an #error. */
static void gen_header_compiles(void)
{
    const char *d = ctxprof_test_tmpdir();
    char path[600], cwd[512], cxx[64], *hdr = NULL, *out = NULL;
    ctxprof_graph g;
    ctxprof_enc_emit_desc desc;
    ctxprof_error err;
    size_t len;
    int rc;
    const char *expect = "pcce: A -> J -> D -> F -> H -> E -> F\n"
                         "valence: A -> J -> D -> F -> H -> E -> F\n"
                         "hcce: A -> J -> D -> F -> H -> E -> F\n"
                         "auto: A -> J -> D -> F -> H -> E -> F\n"
                         "pcce: A\nvalence: A\nhcce: A\nauto: A\n";
    PLAIN_BUILD_ONLY();
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    REQUIRE(pcce_graph_file(&g, "tests/data/fig3.txt") == 0);
    memset(&desc, 0, sizeof desc);
    desc.schemes = 0x1E;
    REQUIRE_EQ(ctxprof_enc_emit(&g, &desc, &hdr, &len, &err), CTXPROF_OK);
    snprintf(path, sizeof path, "%s/fig3_ctx.h", d);
    REQUIRE_EQ(ctxprof__write_file_atomic(path, hdr, len, &err), CTXPROF_OK);
    snprintf(path, sizeof path, "%s/drv.c", d);
    REQUIRE(gen_write(path,
                      "#ifndef _GNU_SOURCE\n#define _GNU_SOURCE\n#endif\n"
                      "#define CTXPROF_IMPLEMENTATION\n#include \"fig3_ctx.h\"\n"
                      "#include <stdio.h>\n"
                      "#define ALL(e, s) CTXPROF_GEN_CALL_PCCE(e, CTXPROF_GEN_CALL_VALENCE(e, "
                      "CTXPROF_GEN_CALL_HCCE(e, CTXPROF_GEN_CALL_AUTO(e, s))))\n"
                      "static void report(unsigned node)\n{\n"
                      "    ctxprof_enc *st[5] = {&ctxprof_pcce_tls, /* [0]: unused */\n"
                      "        &ctxprof_pcce_tls, &ctxprof_val_tls, &ctxprof_val_hcce_tls,\n"
                      "        &ctxprof_val_auto_tls};\n"
                      "    int s;\n    for (s = 1; s < 5; s++) {\n"
                      "        const ctxprof_enc_tables *t = ctxprof_gen_tables(s);\n"
                      "        ctxprof_enc_view v;\n        uint32_t p[32];\n        size_t n;\n"
                      "        char buf[200];\n        ctxprof_error e;\n"
                      "        ctxprof_enc_query(st[s], t->acyc_bits, &v);\n"
                      "        if (ctxprof_enc_decode_view(t, &v, node, p, 32, &n, &e)) {\n"
                      "            printf(\"%s: %s\\n\", ctxprof_enc_scheme_name(s), e.detail);\n"
                      "            continue;\n        }\n"
                      "        ctxprof_enc_format(t, node, p, n, buf, sizeof buf);\n"
                      "        printf(\"%s: %s\\n\", ctxprof_enc_scheme_name(s), buf);\n    }\n}\n"
                      "static int F(int k);\n"
                      "static int E(int k) { int r; ALL(CTXPROF_EDGE(E, F, 0), r = F(k)); return r; }\n"
                      "static int H(int k) { int r; ALL(CTXPROF_EDGE(H, E, 0), r = E(k)); return r; }\n"
                      "static int F(int k)\n{\n    int r;\n    if (k == 0) {\n"
                      "        report(CTXPROF_NODE(F));\n        return 1;\n    }\n"
                      "    ALL(CTXPROF_EDGE(F, H, 0), r = H(k - 1));\n    return r;\n}\n"
                      "static int D(int k) { int r; ALL(CTXPROF_EDGE(D, F, 0), r = F(k)); return r; }\n"
                      "static int J(int k) { int r; ALL(CTXPROF_EDGE(J, D, 0), r = D(k)); return r; }\n"
                      "int main(void)\n{\n    int r;\n    ALL(CTXPROF_EDGE(A, J, 0), r = J(1));\n"
                      "    report(CTXPROF_NODE(A));\n    return r == 1 ? 0 : 1;\n}\n") == 0);
    snprintf(cxx, sizeof cxx, "%s", strcmp(CTXPROF_TEST_CC, "clang") == 0 ? "clang++" : "g++");
    rc = ctxprof_test_sh("cd %s && %s -std=c11 -O2 -Wall -Wextra -Werror -pedantic -Wshadow "
                         "-Wstrict-prototypes -Wmissing-prototypes -Wconversion -Wsign-conversion "
                         "-Wundef -I%s drv.c -o drv_c > drv_c.log 2>&1 && ./drv_c > drv_c.out",
                         d, CTXPROF_TEST_CC, cwd);
    CHECK_EQ(rc, 0);
    if ((out = gen_read(d, "drv_c.out", NULL)) != NULL) {
        CHECK_STR(out, expect);
        free(out);
    }
    rc = ctxprof_test_sh("cd %s && cp drv.c drv.cpp && %s -std=c++11 -O2 -Wall -Wextra -Werror "
                         "-pedantic -Wshadow -Wconversion -Wsign-conversion -Wundef "
                         "-Wold-style-cast -Wzero-as-null-pointer-constant -I%s drv.cpp "
                         "-o drv_cpp > drv_cpp.log 2>&1 && ./drv_cpp > drv_cpp.out",
                         d, cxx, cwd);
    CHECK_EQ(rc, 0);
    if ((out = gen_read(d, "drv_cpp.out", NULL)) != NULL) {
        CHECK_STR(out, expect);
        free(out);
    }
    rc = ctxprof_test_sh("cd %s && %s -std=c11 -DCTXPROF_CTX_BITS=32 -I%s -c drv.c -o drv32.o "
                         "> drv32.log 2>&1",
                         d, CTXPROF_TEST_CC, cwd);
    CHECK_NE(rc, 0);
    if ((out = gen_read(d, "drv32.log", NULL)) != NULL) {
        CHECK_CONTAINS(out, "generated for CTXPROF_CTX_BITS 64");
        free(out);
    }
    /* an edge the graph lacks is a compile error with default flags (it
       was an implicit declaration: a warning, then a link error), in every
       scheme's macro */
    REQUIRE(gen_write(path, "#include \"fig3_ctx.h\"\n"
                            "int F(int k);\n"
                            "int E(int k) { int r; CTXPROF_GEN_CALL_PCCE(CTXPROF_EDGE(E, F, 5), "
                            "r = F(k)); return r; }\n"
                            "int H(int k) { int r; CTXPROF_CALL(CTXPROF_EDGE(H, I, 0), "
                            "r = F(k)); return r; }\n") == 0);
    rc = ctxprof_test_sh("cd %s && %s -I%s -c drv.c -o bad.o > bad.log 2>&1", d,
                         CTXPROF_TEST_CC, cwd);
    CHECK_NE(rc, 0);
    if ((out = gen_read(d, "bad.log", NULL)) != NULL) {
        CHECK_CONTAINS(out, "ctxprof_gen_e_E__F__5");
        CHECK_CONTAINS(out, "ctxprof_gen_e_H__I__0");
        free(out);
    }
    ctxprof_graph_free_buffer(hdr, NULL);
    ctxprof_graph_deinit(&g);
}

/* Emits every scheme of a text graph into d/TAG_ctx.h (banner inputs:
   inputs[0 .. n_inputs)), compiles d/TAG.c (drv) with the strict warning
   set and runs it. Returns the shell status: 0 when all went well; the
   compiler's and the program's output is in d/TAG.log. */
static int gen_build_run(const char *tag, const char *graph, const char *const *inputs,
                         size_t n_inputs, const char *drv)
{
    const char *d = ctxprof_test_tmpdir();
    char path[600], cwd[512], *hdr = NULL;
    ctxprof_graph g;
    ctxprof_enc_emit_desc desc;
    ctxprof_error err;
    size_t len;
    int rc = -1;
    if (!getcwd(cwd, sizeof cwd) || pcce_graph_text(&g, graph) != 0)
        return -1;
    memset(&desc, 0, sizeof desc);
    desc.schemes = 0x1E;
    desc.inputs = inputs;
    desc.n_inputs = n_inputs;
    if (ctxprof_enc_emit(&g, &desc, &hdr, &len, &err) != CTXPROF_OK) {
        fprintf(stderr, "  emit: %s\n", err.detail);
        goto out;
    }
    snprintf(path, sizeof path, "%s/%s_ctx.h", d, tag);
    if (ctxprof__write_file_atomic(path, hdr, len, &err) != CTXPROF_OK)
        goto out;
    snprintf(path, sizeof path, "%s/%s.c", d, tag);
    if (gen_write(path, drv) != 0)
        goto out;
    rc = ctxprof_test_sh(
        "cd %s && %s -std=c11 -O1 -Wall -Wextra -Werror -pedantic -Wshadow "
        "-Wstrict-prototypes -Wmissing-prototypes -Wconversion -Wsign-conversion "
        "-Wundef -D_GNU_SOURCE -I%s %s.c -o %s > %s.log 2>&1 && ./%s >> %s.log 2>&1",
        d, CTXPROF_TEST_CC, cwd, tag, tag, tag, tag, tag);
out:
    ctxprof_graph_free_buffer(hdr, NULL);
    ctxprof_graph_deinit(&g);
    return rc;
}

/* Functions named like the generated counts: "count" used to be both
   ctxprof_gen_n_count, the number of functions, and the function's id.
   And a macro named like a function is not expanded in an edge's name. */
static void gen_names_reserved(void)
{
    PLAIN_BUILD_ONLY();
    CHECK_EQ(gen_build_run("count",
                           "ctxprof-callgraph 1\nroot main\ncall main count\n"
                           "call count node_count\ncall count edge_count\n",
                           NULL, 0,
                           "#define CTXPROF_IMPLEMENTATION\n#include \"count_ctx.h\"\n"
                           "static int node_count(void) { return 1; }\n"
                           "static int edge_count(void) { return 2; }\n"
                           "static int count(void)\n{\n    int a, b;\n"
                           "    CTXPROF_CALL(CTXPROF_EDGE(count, node_count, 0), a = node_count());\n"
                           "    CTXPROF_CALL(CTXPROF_EDGE(count, edge_count, 0), b = edge_count());\n"
                           "    return a + b;\n}\n"
                           "#define node_count oops /* names are not macro-expanded */\n"
                           "int main(void)\n{\n    int r;\n"
                           "    CTXPROF_CALL(CTXPROF_EDGE(main, count, 0), r = count());\n"
                           "    return r == 3 && CTXPROF_NODE(count) == 1 && "
                           "ctxprof_gen_node_count == 4 &&\n"
                           "           ctxprof_gen_edge_count == 3 && "
                           "CTXPROF_EDGE_ID(count, edge_count, 0) == 2 &&\n"
                           "           CTXPROF_EDGE_ID(count, node_count, 0) == 1 ? 0 : 1;\n}\n"),
             0);
}

/* Names, labels and input names reach the header escaped: '"', '\' and
   trigraphs in the names table, comment ends and starts and trigraphs in
   comments (they made the header fail to compile). */
static void gen_names_escaped(void)
{
    static const char *const inputs[2] = {"x*/g.cg", "y/*?\?/"};
    PLAIN_BUILD_ONLY();
    CHECK_EQ(gen_build_run("esc",
                           "ctxprof-callgraph 1\nroot main\ncall main a site=x*/y\n"
                           "call main a site=p/*q\ncall main b\"c\\d\ncall main e?\?/\n"
                           "call main f\\\ncall main g?\?= site=?\?/\n",
                           inputs, 2,
                           "#define CTXPROF_IMPLEMENTATION\n#include \"esc_ctx.h\"\n"
                           "#include <string.h>\n"
                           "int main(void)\n{\n"
                           "    static const char *const want[6] = {\"main\", \"a\", "
                           "\"b\\\"c\\\\d\", \"e?\\?/\", \"f\\\\\", \"g?\\?=\"};\n"
                           "    const ctxprof_enc_tables *t = ctxprof_gen_tables(CTXPROF_ENC_AUTO);\n"
                           "    int i;\n    for (i = 0; i < 6; i++)\n"
                           "        if (strcmp(t->node_names[i], want[i]) != 0)\n"
                           "            return 1;\n"
                           "    return t->n_nodes == 6 ? 0 : 1;\n}\n"),
             0);
}

/* Edge names are compared whole: two that first differ after 600 bytes
   (C++ template instantiations) were cut to one text and refused as a
   clash. Names that would clash with "__" between the parts get another
   separator. */
static void gen_names_long_edges(void)
{
    char a[401], b1[302], b2[302], text[2000], want[800], *hdr = NULL;
    ctxprof_graph g;
    ctxprof_error err;
    size_t len;
    memset(a, 'a', 400);
    a[400] = '\0';
    memset(b1, 'b', 300);
    memcpy(b2, b1, 300);
    memcpy(b1 + 300, "1", 2);
    memcpy(b2 + 300, "2", 2);
    snprintf(text, sizeof text, "ctxprof-callgraph 1\nroot main\ncall main %s\ncall %s %s\n"
                                "call %s %s\n", a, a, b1, a, b2);
    REQUIRE(pcce_graph_text(&g, text) == 0);
    REQUIRE_EQ(ctxprof_enc_emit(&g, NULL, &hdr, &len, &err), CTXPROF_OK);
    snprintf(want, sizeof want, "ctxprof_gen_e_%s__%s__0 = 1,", a, b1);
    CHECK_CONTAINS(hdr, want);
    snprintf(want, sizeof want, "ctxprof_gen_e_%s__%s__0 = 2,", a, b2);
    CHECK_CONTAINS(hdr, want);
    ctxprof_graph_free_buffer(hdr, NULL);
    hdr = NULL;
    ctxprof_graph_deinit(&g);
    snprintf(text, sizeof text, "ctxprof-callgraph 1\nroot main\ncall main %s__x\n"
                                "call %s__x y\ncall main %s\ncall %s x__y\n", a, a, a, a);
    REQUIRE(pcce_graph_text(&g, text) == 0);
    REQUIRE_EQ(ctxprof_enc_emit(&g, NULL, &hdr, &len, &err), CTXPROF_OK);
    snprintf(want, sizeof want, "ctxprof_gen_e_%s__x_1_y_1_0 = 1,", a);
    CHECK_CONTAINS(hdr, want);
    snprintf(want, sizeof want, "ctxprof_gen_e_%s_1_x__y_1_0 = 3,", a);
    CHECK_CONTAINS(hdr, want);
    ctxprof_graph_free_buffer(hdr, NULL);
    ctxprof_graph_deinit(&g);
}

/* Valid C names with "__" (a__b calling c, a calling b__c) gave two edges
   one name, a__b__c__0, and the header was refused. The header now joins
   the parts with a separator that keeps them apart, and CTXPROF_EDGE,
   CTXPROF_EDGE_ID and every scheme's call macros take the names as they
   are written; each edge decodes as itself. Names with a leading or
   trailing '_' (x_ calling y, x calling _y) are the same case. */
static void gen_names_double_underscore(void)
{
    PLAIN_BUILD_ONLY();
    CHECK_EQ(gen_build_run(
                 "dunder",
                 "ctxprof-callgraph 1\nroot main\ncall main a__b\ncall a__b c\ncall main a\n"
                 "call a b__c\ncall main x_\ncall x_ y\ncall main x\ncall x _y\n",
                 NULL, 0,
                 "#define CTXPROF_IMPLEMENTATION\n#include \"dunder_ctx.h\"\n#include <stdio.h>\n"
                 "#include <string.h>\n"
                 "#define ALL(e, s) CTXPROF_GEN_CALL_PCCE(e, CTXPROF_GEN_CALL_VALENCE(e, "
                 "CTXPROF_GEN_CALL_HCCE(e, CTXPROF_GEN_CALL_AUTO(e, s))))\n"
                 "static int bad;\n"
                 "static void expect(unsigned node, const char *want)\n{\n"
                 "    ctxprof_enc *st[5] = {0, &ctxprof_pcce_tls, &ctxprof_val_tls,\n"
                 "        &ctxprof_val_hcce_tls, &ctxprof_val_auto_tls};\n"
                 "    int s;\n    for (s = 1; s < 5; s++) {\n"
                 "        const ctxprof_enc_tables *t = ctxprof_gen_tables(s);\n"
                 "        ctxprof_enc_view v;\n        uint32_t p[8];\n        size_t n;\n"
                 "        char buf[100];\n        ctxprof_error e;\n"
                 "        ctxprof_enc_query(st[s], t->acyc_bits, &v);\n"
                 "        buf[0] = 0;\n"
                 "        if (ctxprof_enc_decode_view(t, &v, node, p, 8, &n, &e) == 0)\n"
                 "            ctxprof_enc_format(t, node, p, n, buf, sizeof buf);\n"
                 "        if (strcmp(buf, want) != 0) {\n"
                 "            printf(\"%s: %s, not %s\\n\", ctxprof_enc_scheme_name(s), buf, "
                 "want);\n"
                 "            bad = 1;\n        }\n    }\n}\n"
                 "static void c(void) { expect(CTXPROF_NODE(c), \"main -> a__b -> c\"); }\n"
                 "static void b__c(void) { expect(CTXPROF_NODE(b__c), \"main -> a -> b__c\"); }\n"
                 "static void y(void) { expect(CTXPROF_NODE(y), \"main -> x_ -> y\"); }\n"
                 "static void _y(void) { expect(CTXPROF_NODE(_y), \"main -> x -> _y\"); }\n"
                 "static void a__b(void) { ALL(CTXPROF_EDGE(a__b, c, 0), c()); }\n"
                 "static void a(void) { ALL(CTXPROF_EDGE(a, b__c, 0), b__c()); }\n"
                 "static void x_(void) { ALL(CTXPROF_EDGE(x_, y, 0), y()); }\n"
                 "static void x(void) { ALL(CTXPROF_EDGE(x, _y, 0), _y()); }\n"
                 "int main(void)\n{\n"
                 "    ALL(CTXPROF_EDGE(main, a__b, 0), a__b());\n"
                 "    ALL(CTXPROF_EDGE(main, a, 0), a());\n"
                 "    ALL(CTXPROF_EDGE(main, x_, 0), x_());\n"
                 "    ALL(CTXPROF_EDGE(main, x, 0), x());\n"
                 "    if (CTXPROF_EDGE_ID(a__b, c, 0) == CTXPROF_EDGE_ID(a, b__c, 0) ||\n"
                 "        CTXPROF_EDGE_ID(x_, y, 0) == CTXPROF_EDGE_ID(x, _y, 0))\n"
                 "        bad = 1;\n"
                 "    return bad;\n}\n"),
             0);
}

/* A function name longer than the 4095 characters a C string literal may
   have under -pedantic (a C++ template's, a generated one) made a header
   that did not compile (-Werror=overlength-strings); such names go into
   the names table as char arrays and read back whole, quotes, backslashes
   and non-ASCII bytes included. */
static void gen_names_very_long(void)
{
    char *text, *f, *gname;
    size_t k;
    PLAIN_BUILD_ONLY();
    REQUIRE((text = (char *)malloc(20000)) != NULL);
    f = (char *)malloc(5001);
    gname = (char *)malloc(4200);
    REQUIRE(f != NULL && gname != NULL);
    memset(f, 'f', 5000);
    f[5000] = '\0';
    memcpy(gname, "g\"\\", 3);
    for (k = 3; k < 4103; k++)
        gname[k] = (char)('a' + k % 26);
    memcpy(gname + 4103, "\303\251", 3);
    snprintf(text, 20000, "ctxprof-callgraph 1\nroot main\ncall main %s\ncall %s %s\n", f, f,
             gname);
    CHECK_EQ(
        gen_build_run("vlong", text, NULL, 0,
                      "#define CTXPROF_IMPLEMENTATION\n#include \"vlong_ctx.h\"\n"
                      "#include <string.h>\n#include <stdlib.h>\n"
                      "int main(void)\n{\n"
                      "    const ctxprof_enc_tables *t = ctxprof_gen_tables(CTXPROF_ENC_AUTO);\n"
                      "    char f[5001], g[4200];\n    size_t k;\n"
                      "    memset(f, 'f', 5000);\n    f[5000] = 0;\n"
                      "    memcpy(g, \"g\\\"\\\\\", 3);\n"
                      "    for (k = 3; k < 4103; k++)\n"
                      "        g[k] = (char)('a' + k % 26);\n"
                      "    memcpy(g + 4103, \"\\303\\251\", 3);\n"
                      "    return t->n_nodes == 3 && strcmp(t->node_names[0], \"main\") == 0 &&\n"
                      "           strcmp(t->node_names[1], f) == 0 && "
                      "strcmp(t->node_names[2], g) == 0 ? 0 : 1;\n}\n"),
        0);
    free(f);
    free(gname);
    free(text);
}

/* The floor per acyclic call site, in the compiler's output: a PCCE edge
   is one add before and one subtract after, on the thread-local word; a
   Valence edge is two whole-word XORs (no byte-sized narrowing). */
static void gen_call_site_floor(void)
{
    const char *d = ctxprof_test_tmpdir();
    char path[600], cwd[512], *hdr = NULL, *as = NULL;
    ctxprof_graph g;
    ctxprof_enc_emit_desc desc;
    ctxprof_error err;
    size_t len;
    int fn;
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    REQUIRE(pcce_graph_text(&g, "ctxprof-callgraph 1\nroot main\ncall main f\ncall main g\n"
                                "call g f\ncall f h\ncall g h\ncall h h\n") == 0);
    memset(&desc, 0, sizeof desc);
    desc.schemes = 0x1E;
    REQUIRE_EQ(ctxprof_enc_emit(&g, &desc, &hdr, &len, &err), CTXPROF_OK);
    snprintf(path, sizeof path, "%s/fl_ctx.h", d);
    REQUIRE_EQ(ctxprof__write_file_atomic(path, hdr, len, &err), CTXPROF_OK);
    CHECK_CONTAINS(hdr, "#define ctxprof_gen_c_g__h__0_pcce(st, ...) CTXPROF_PCCE_CALL_ADD(");
    CHECK_CONTAINS(hdr, "#define ctxprof_gen_c_g__h__0_valence(st, ...) CTXPROF_VAL_CALL_SET(");
    snprintf(path, sizeof path, "%s/fl.c", d);
    REQUIRE(gen_write(path, "#include \"fl_ctx.h\"\nint h(int);\nint site_pcce(int x);\n"
                            "int site_val(int x);\nint plain(int x);\n"
                            "int site_pcce(int x) { int r; CTXPROF_GEN_CALL_PCCE(CTXPROF_EDGE(g, "
                            "h, 0), r = h(x)); return r + 1; }\n"
                            "int site_val(int x) { int r; CTXPROF_GEN_CALL_VALENCE(CTXPROF_EDGE(g, "
                            "h, 0), r = h(x)); return r + 1; }\n"
                            "int plain(int x) { return h(x) + 1; }\n") == 0);
    REQUIRE_EQ(ctxprof_test_sh("cd %s && %s -O2 -S -I%s fl.c -o fl.s", d, CTXPROF_TEST_CC, cwd),
               0);
    REQUIRE((as = gen_read(d, "fl.s", NULL)) != NULL);
    for (fn = 0; fn < 2; fn++) {
        const char *start = strstr(as, fn == 0 ? "\nsite_pcce:" : "\nsite_val:"), *p;
        int fs_ops = 0, narrow = 0, adds = 0, subs = 0, xors = 0;
        REQUIRE(start != NULL);
        for (p = start + 1; *p && strncmp(p, "\t.size", 6) != 0 && strncmp(p, "\tret", 4) != 0;) {
            const char *eol = strchr(p, '\n');
            size_t n = eol ? (size_t)(eol - p) : strlen(p);
            char line[200];
            snprintf(line, sizeof line, "%.*s", (int)(n < 199 ? n : 199), p);
            if (strstr(line, "%fs:")) {
                fs_ops++;
                if (strstr(line, "xorb") || strstr(line, "orb\t") || strstr(line, "andb") ||
                    strstr(line, "xorw") || strstr(line, "xorl"))
                    narrow++;
                if (strstr(line, "addq\t$3,") || strstr(line, "addq $3,"))
                    adds++;
                if (strstr(line, "subq\t$3,") || strstr(line, "addq\t$-3,"))
                    subs++;
                if (strstr(line, "xorq"))
                    xors++;
            }
            p = eol ? eol + 1 : p + n;
        }
        CHECK_EQ(fs_ops, 2); /* the floor: two instructions per acyclic call site */
        CHECK_EQ(narrow, 0);
        if (fn == 0) {
            CHECK_EQ(adds, 1);
            CHECK_EQ(subs, 1);
        } else {
            CHECK_EQ(xors, 2);
        }
    }
    free(as);
    ctxprof_graph_free_buffer(hdr, NULL);
    ctxprof_graph_deinit(&g);
}

/* build/ctxprof-gen itself: outputs, key=value lines, exit codes, errors
   as file:line: error: text. */
static void gen_cli(void)
{
    const char *d = ctxprof_test_tmpdir();
    const char *tool = "build/ctxprof-gen";
    char path[600], *out = NULL, *golden = NULL;
    size_t len, lg;
    ctxprof_error err;
    if (access(tool, X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    CHECK_EQ(ctxprof_test_sh("%s stats tests/data/fig3.txt > %s/stats.out", tool, d), 0);
    REQUIRE((out = gen_read(d, "stats.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "nodes=10\nedges=18\nsccs=6\ncomplex_sccs=2\ncyclic_edges=7\n");
    CHECK_CONTAINS(out, "pcce_bits=");
    CHECK_CONTAINS(out, "\nvalence_bits=");
    CHECK_CONTAINS(out, "\nhcce_bits=");
    free(out);
    /* Figure 1/2 of the Valence paper: I has 8 contexts (PCCE ids 0-7: 3
       bits) and Valence level 4 ("Valence uses four bits ... at node I");
       the graph is acyclic, so HCCE is PCCE */
    CHECK_EQ(ctxprof_test_sh("%s stats tests/data/fig1.txt > %s/stats1.out", tool, d), 0);
    REQUIRE((out = gen_read(d, "stats1.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "nodes=10\nedges=14\nsccs=10\ncomplex_sccs=0\ncyclic_edges=0\n"
                        "pcce_bits=3\nvalence_bits=4\nhcce_bits=3\n");
    free(out);
    CHECK_EQ(ctxprof_test_sh("%s check tests/data/fig3.txt --walks 40 --seed 3 --depth 30 > "
                             "%s/check.out",
                             tool, d),
             0);
    REQUIRE((out = gen_read(d, "check.out", NULL)) != NULL);
    {
        unsigned long long steps = 0, dec[4] = {0, 0, 0, 0};
        const char *p = strstr(out, "steps=");
        static const char *const keys[4] = {"decoded_pcce=", "decoded_valence=",
                                            "decoded_hcce=", "decoded_auto="};
        int k;
        REQUIRE(p != NULL);
        steps = strtoull(p + 6, NULL, 10);
        CHECK(steps > 0);
        for (k = 0; k < 4; k++) {
            p = strstr(out, keys[k]);
            REQUIRE(p != NULL);
            dec[k] = strtoull(p + strlen(keys[k]), NULL, 10);
            CHECK_EQ(dec[k], steps);
        }
        CHECK_CONTAINS(out, "avg_words_pcce=");
        CHECK_CONTAINS(out, "max_words_auto=");
    }
    free(out);
    /* the header on stdout and with -o: both the golden bytes */
    REQUIRE_EQ(ctxprof__read_file("tests/data/fig3_ctx.h", &golden, &lg, NULL, &err), CTXPROF_OK);
    /* one-word acyclic parts need no CTXPROF_ENC_ACYC_WORDS check (it was
       a dead "#if ... < 1" asking for ACYC_WORDS=1) */
    CHECK(strstr(golden, "CTXPROF_ENC_ACYC_WORDS <") == NULL);
    CHECK_EQ(ctxprof_test_sh("%s --all-schemes -o %s/fig3_ctx.h tests/data/fig3.txt", tool, d), 0);
    REQUIRE((out = gen_read(d, "fig3_ctx.h", &len)) != NULL);
    CHECK(len == lg && memcmp(out, golden, len) == 0);
    free(out);
    CHECK_EQ(ctxprof_test_sh("%s --all-schemes --guard FIG3_CTX_H_INCLUDED tests/data/fig3.txt "
                             "> %s/stdout.h",
                             tool, d),
             0);
    REQUIRE((out = gen_read(d, "stdout.h", &len)) != NULL);
    CHECK(len == lg && memcmp(out, golden, len) == 0);
    free(out);
    free(golden);
    /* an output that is not a regular file (a FIFO here, /dev/null for a
       user) is written through, not replaced by a renamed temporary file */
    CHECK_EQ(ctxprof_test_sh("cd %s && rm -f fifo && mkfifo fifo && (cat fifo > fifo.out &) && "
                             "%s/%s -o fifo %s/tests/data/fig3.txt && sleep 0.2 && test -p fifo && "
                             "grep -q ctxprof_gen_tables fifo.out",
                             d, getcwd(path, sizeof path), tool, path),
             0);
    /* errors: bad input 1 with file:line: error:, usage 2 */
    snprintf(path, sizeof path, "%s/bad.txt", d);
    REQUIRE(gen_write(path, "ctxprof-callgraph 1\ncal a b\n") == 0);
    CHECK_EQ(ctxprof_test_sh("%s stats %s 2> %s/err.out", tool, path, d), 1);
    REQUIRE((out = gen_read(d, "err.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "bad.txt:2: error: unknown keyword 'cal'");
    free(out);
    /* the same form from pad and callgraph, which read path maps */
    snprintf(path, sizeof path, "%s/bad.paths", d);
    REQUIRE(gen_write(path, "ctxprof-paths 1\nbogus 1 2 main\n") == 0);
    CHECK_EQ(ctxprof_test_sh("%s pad %s 2> %s/err.out", tool, path, d), 1);
    REQUIRE((out = gen_read(d, "err.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "bad.paths:2: error: unknown keyword 'bogus'");
    free(out);
    CHECK_EQ(ctxprof_test_sh("%s callgraph %s 2> %s/err.out", tool, path, d), 1);
    REQUIRE((out = gen_read(d, "err.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "bad.paths:2: error: unknown keyword 'bogus'");
    free(out);
    REQUIRE(gen_write(path, "ctxprof-paths 1\n") == 0);
    CHECK_EQ(ctxprof_test_sh("%s pad %s 2> %s/err.out", tool, path, d), 1);
    REQUIRE((out = gen_read(d, "err.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "bad.paths: error: no paths");
    free(out);
    CHECK_EQ(ctxprof_test_sh("%s callgraph 2> %s/err.out", tool, d), 2);
    REQUIRE((out = gen_read(d, "err.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "no path map given");
    free(out);
    CHECK_EQ(ctxprof_test_sh("%s 2>/dev/null", tool), 2);
    CHECK_EQ(ctxprof_test_sh("%s --frobnicate tests/data/fig3.txt 2>/dev/null", tool), 2);
    /* an unknown option last is unknown, not short of a value */
    CHECK_EQ(ctxprof_test_sh("%s stats tests/data/fig3.txt --frobnicate 2>&1 | "
                             "grep -q 'unknown option --frobnicate'",
                             tool),
             0);
    CHECK_EQ(ctxprof_test_sh("%s check tests/data/fig3.txt --walks 2>&1 | "
                             "grep -q 'option --walks needs a value'",
                             tool),
             0);
    CHECK_EQ(ctxprof_test_sh("%s check tests/data/fig3.txt 2>/dev/null", tool), 2);
    CHECK_EQ(ctxprof_test_sh("%s --bits 16 tests/data/fig3.txt 2>/dev/null", tool), 2);
    CHECK_EQ(ctxprof_test_sh("%s --scheme fast tests/data/fig3.txt 2>/dev/null", tool), 2);
    CHECK_EQ(ctxprof_test_sh("%s /nonexistent.txt 2>/dev/null", tool), 2);
    CHECK_EQ(ctxprof_test_sh("%s -o /nonexistent/dir/x.h tests/data/fig3.txt 2>/dev/null", tool),
             2);
    CHECK_EQ(ctxprof_test_sh("%s --help > %s/help.out", tool, d), 0);
    REQUIRE((out = gen_read(d, "help.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "ctxprof-callgraph 1");
    CHECK_CONTAINS(out, "call CALLER CALLEE [site=LABEL]");
    CHECK_CONTAINS(out, "-fcallgraph-info=su");
    CHECK_CONTAINS(out, "check GRAPH... --walks N");
    free(out);
    CHECK_EQ(ctxprof_test_sh("%s --version | grep -q '^ctxprof-gen %s$'", tool,
                             CTXPROF_VERSION_STRING),
             0);
}

/* The tool takes any number of inputs (it stopped at 256): 300 files,
   one call each, merge into one graph. */
static void gen_many_inputs(void)
{
    const char *d = ctxprof_test_tmpdir(), *tool = "build/ctxprof-gen";
    char path[600], *out = NULL;
    int i;
    if (access(tool, X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    for (i = 0; i < 300; i++) {
        char text[80];
        snprintf(path, sizeof path, "%s/many", d);
        mkdir(path, 0777);
        snprintf(path, sizeof path, "%s/many/in%03d.txt", d, i);
        snprintf(text, sizeof text, "ctxprof-callgraph 1\ncall main f%d\n", i);
        REQUIRE(gen_write(path, text) == 0);
    }
    REQUIRE_EQ(ctxprof_test_sh("%s stats %s/many/in*.txt > %s/many.out", tool, d, d), 0);
    REQUIRE((out = gen_read(d, "many.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "nodes=301\nedges=300\n");
    free(out);
}

/* A training run's dynamic call graph: `ctxprof-gen callgraph` turns an
   ICPP path map (what the -finstrument-functions hooks record) into the
   ctxprof-callgraph format: one edge per caller -> callee seen, the root
   of the most entered paths; it loads and merges like any text graph. */
static void gen_callgraph_from_paths(void)
{
    const char *d = ctxprof_test_tmpdir(), *tool = "build/ctxprof-gen";
    char path[600], *out = NULL;
    size_t len;
    ctxprof_graph g;
    if (access(tool, X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    snprintf(path, sizeof path, "%s/train.paths", d);
    REQUIRE(gen_write(path, "ctxprof-paths 1\npath 2 16 worker helper\n"
                            "path 10 64 main parse expr\npath 3 96 main parse expr term expr\n"
                            "path 1 32 main helper\n") == 0);
    REQUIRE_EQ(ctxprof_test_sh("%s callgraph %s -o %s/dyn.callgraph", tool, path, d), 0);
    snprintf(path, sizeof path, "%s/dyn.callgraph", d);
    REQUIRE((out = (char *)ctxprof_test_slurp(path, &len)) != NULL);
    CHECK(strncmp(out, "ctxprof-callgraph 1\nroot main\n", 30) == 0);
    CHECK_CONTAINS(out, "\ncall main parse\n");
    CHECK_CONTAINS(out, "\ncall parse expr\n");
    CHECK_CONTAINS(out, "\ncall term expr\n"); /* the recursion seen */
    CHECK_CONTAINS(out, "\ncall worker helper\n");
    CHECK(strstr(out, "call expr expr") == NULL);
    CHECK(strstr(out, "site=") == NULL);
    free(out);
    REQUIRE(pcce_graph_file(&g, path) == 0);
    CHECK_EQ(g.n_edges, 6);
    CHECK_EQ(g.n_complex_sccs, 1);
    ctxprof_graph_deinit(&g);
    CHECK_EQ(ctxprof_test_sh("%s callgraph %s/nonexistent.paths 2>/dev/null", tool, d), 2);
    /* names a graph cannot hold, said as such (not as out of memory) */
    CHECK_EQ(ctxprof_test_sh("%s callgraph --root '' %s/train.paths 2>%s/err", tool, d, d), 2);
    snprintf(path, sizeof path, "%s/err", d);
    REQUIRE((out = (char *)ctxprof_test_slurp(path, &len)) != NULL);
    CHECK_CONTAINS(out, "root name '' is empty");
    free(out);
    snprintf(path, sizeof path, "%s/ctl.paths", d);
    REQUIRE(gen_write(path, "ctxprof-paths 1\npath 1 64 main f\001g\n") == 0);
    CHECK_EQ(ctxprof_test_sh("%s callgraph %s 2>%s/err", tool, path, d), 2);
    snprintf(path, sizeof path, "%s/err", d);
    REQUIRE((out = (char *)ctxprof_test_slurp(path, &len)) != NULL);
    CHECK_CONTAINS(out, "holds a control character");
    free(out);
}

/* The value of key in key=value output, or -1. */
static double gen_key(const char *out, const char *key)
{
    char k[64];
    const char *p;
    size_t n = (size_t)snprintf(k, sizeof k, "\n%s=", key);
    if (strncmp(out, k + 1, n - 1) == 0)
        return strtod(out + n - 1, NULL);
    p = strstr(out, k);
    return p ? strtod(p + n, NULL) : -1;
}

/* The issue's goal, shown the way a user would check it: `ctxprof-gen
   check` on several call graphs decodes every step in every scheme, and
   AUTO's encoding is never longer than the best of PCCE, Valence and HCCE,
   on average and at its longest. */
static void gen_check_auto(void)
{
    const char *d = ctxprof_test_tmpdir(), *tool = "build/ctxprof-gen";
    static const char *const schemes[3] = {"pcce", "valence", "hcce"};
    char path[600], cmd[900], *out = NULL;
    static const char *const gen_shapes[4] = {"lay200", "site100", "siteself100", "tail"};
    const char *graphs[10];
    size_t k;
    FILE *f;
    int i;
    if (access(tool, X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    /* an interpreter (eval <-> 200 operators), a ring entered anywhere */
    snprintf(path, sizeof path, "%s/interp.txt", d);
    f = fopen(path, "w");
    REQUIRE(f);
    fprintf(f, "ctxprof-callgraph 1\nroot main\ncall main eval\ncall main parse\n"
               "call parse parse\n");
    for (i = 0; i < 200; i++)
        fprintf(f, "call eval op%d\ncall op%d eval\ncall op%d gc\n", i, i, i);
    fclose(f);
    snprintf(path, sizeof path, "%s/ring.txt", d);
    f = fopen(path, "w");
    REQUIRE(f);
    fprintf(f, "ctxprof-callgraph 1\nroot main\n");
    for (i = 0; i < 40; i++)
        fprintf(f, "call r%d r%d\ncall main r%d\n", i, (i + 1) % 40, i);
    fclose(f);
    /* the audit's graphs whose ids overflow 64 bits (see val_gen_graph) */
    for (k = 0; k < 4; k++) {
        ctxprof__sbuf b;
        memset(&b, 0, sizeof b);
        val_gen_graph(gen_shapes[k], &b);
        REQUIRE(!b.failed);
        snprintf(path, sizeof path, "%s/%s.txt", d, gen_shapes[k]);
        REQUIRE(gen_write(path, b.p) == 0);
        free(b.p);
        graphs[6 + k] = gen_shapes[k];
    }
    graphs[0] = "tests/data/fig3.txt";
    graphs[1] = "tests/data/fig1.txt";
    graphs[2] = "examples/encoders/expr.callgraph";
    graphs[3] = "bench/enc_cost.callgraph";
    graphs[4] = "interp.txt";
    graphs[5] = "ring.txt";
    for (k = 0; k < 10; k++) {
        double steps, best = 1e30, best_max = 1e30, a, amax;
        int s;
        if (k >= 6)
            snprintf(cmd, sizeof cmd, "%s/%s.txt", d, graphs[k]);
        else
            snprintf(cmd, sizeof cmd, "%s%s%s", k >= 4 ? d : "", k >= 4 ? "/" : "", graphs[k]);
        /* the deep graphs: walks past their longest paths (every step decoded) */
        REQUIRE_EQ(ctxprof_test_sh("%s check %s --walks %d --depth %d --seed %zu > %s/chk.out "
                                   "2> %s/chk.err",
                                   tool, cmd, k >= 6 ? 60 : 300, k >= 6 ? 250 : 64, k, d, d),
                   0);
        REQUIRE((out = gen_read(d, "chk.out", NULL)) != NULL);
        steps = gen_key(out, "steps");
        CHECK(steps > 1000);
        CHECK_EQ(gen_key(out, "checked"), steps);
        for (s = 0; s < 3; s++) {
            char key[40];
            snprintf(key, sizeof key, "decoded_%s", schemes[s]);
            CHECK_EQ(gen_key(out, key), steps);
            snprintf(key, sizeof key, "avg_words_%s", schemes[s]);
            if (gen_key(out, key) < best)
                best = gen_key(out, key);
            snprintf(key, sizeof key, "max_words_%s", schemes[s]);
            if (gen_key(out, key) < best_max)
                best_max = gen_key(out, key);
        }
        CHECK_EQ(gen_key(out, "decoded_auto"), steps);
        a = gen_key(out, "avg_words_auto");
        amax = gen_key(out, "max_words_auto");
        CHECK(a >= 1 && a <= best);
        CHECK(amax >= 1 && amax <= best_max);
        if (a > best || amax > best_max)
            fprintf(stderr, "  %s: auto %.3f (max %.0f), best of the others %.3f (max %.0f)\n",
                    graphs[k], a, amax, best, best_max);
        free(out);
    }
}

/* check's walks on a real program (gcc's call graph of the example C
   parser): they descend to --depth (a random walk stopped near depth 8,
   never exercising recursion), decode every step up to 256 deep, and at
   depth 50,000 decode a sample and say so, in seconds. */
static void gen_check_depth(void)
{
    const char *cc = gen_ci_cc(), *d = ctxprof_test_tmpdir(), *tool = "build/ctxprof-gen";
    char *out = NULL;
    if (access(tool, X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    if (!cc)
        SKIP("no compiler with -fcallgraph-info=su");
    REQUIRE_EQ(ctxprof_test_sh("cp examples/hotpaths/cparse.c examples/hotpaths/cparse.h %s/ && "
                               "cd %s && %s -O2 -fcallgraph-info=su -c cparse.c -o cparse.o",
                               d, d, cc),
               0);
    REQUIRE_EQ(ctxprof_test_sh("%s check %s/cparse.ci --root cparse_run --walks 200 --depth 120 "
                               "> %s/d.out",
                               tool, d, d),
               0);
    REQUIRE((out = gen_read(d, "d.out", NULL)) != NULL);
    CHECK_EQ(gen_key(out, "max_depth"), 120);
    CHECK_EQ(gen_key(out, "checked"), gen_key(out, "steps"));
    CHECK_EQ(gen_key(out, "decoded_auto"), gen_key(out, "steps"));
    CHECK(gen_key(out, "max_words_valence") > 2); /* recursion was on the stack */
    free(out);
    REQUIRE_EQ(ctxprof_test_sh("%s check %s/cparse.ci --root cparse_run --walks 2 --depth 50000 "
                               "> %s/d.out 2> %s/d.err",
                               tool, d, d, d),
               0);
    REQUIRE((out = gen_read(d, "d.out", NULL)) != NULL);
    CHECK(gen_key(out, "max_depth") > 25000);
    CHECK(gen_key(out, "checked") < gen_key(out, "steps"));
    CHECK(gen_key(out, "checked") > 0);
    CHECK_EQ(gen_key(out, "decoded_pcce"), gen_key(out, "checked"));
    CHECK_EQ(gen_key(out, "decoded_auto"), gen_key(out, "checked"));
    free(out);
    REQUIRE((out = gen_read(d, "d.err", NULL)) != NULL);
    CHECK_CONTAINS(out, "note: decoded every step up to depth 256 and a sample of ");
    free(out);
}

/* check works on any valid graph: a 17,000-layer DAG, whose Valence id is
   16,999 bits (266 words, far beyond the 8 a run-time state holds), runs
   on acyclic words sized at run time; it used to stop with "rebuild with
   -DCTXPROF_ENC_ACYC_WORDS=266". */
static void gen_check_wide(void)
{
    const char *d = ctxprof_test_tmpdir(), *tool = "build/ctxprof-gen";
    char path[600], *out = NULL;
    ctxprof__sbuf b;
    if (access(tool, X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    memset(&b, 0, sizeof b);
    val_gen_graph("lay17000", &b);
    REQUIRE(!b.failed);
    snprintf(path, sizeof path, "%s/lay17000.txt", d);
    REQUIRE(gen_write(path, b.p) == 0);
    free(b.p);
    REQUIRE_EQ(
        ctxprof_test_sh("%s check %s --walks 20 --depth 200 > %s/w.out 2>/dev/null", tool, path, d),
        0);
    REQUIRE((out = gen_read(d, "w.out", NULL)) != NULL);
    CHECK(gen_key(out, "steps") > 1000);
    CHECK_EQ(gen_key(out, "checked"), gen_key(out, "steps"));
    CHECK_EQ(gen_key(out, "decoded_valence"), gen_key(out, "steps"));
    CHECK_EQ(gen_key(out, "decoded_auto"), gen_key(out, "steps"));
    CHECK_EQ(gen_key(out, "max_words_valence"), 266); /* ceil(16999 / 64) */
    CHECK_EQ(gen_key(out, "max_depth"), 200);
    free(out);
}

/* examples/encoders: the parser prints the context of a '?' as the
   grammar says it was reached (the second term of a sum is parse_expr's
   "next" site #1, the second factor of a product parse_term's #1), its
   unit test passes, and the demo script runs as `make demo` runs it. */
static void gen_example_encoders(void)
{
    const char *d = ctxprof_test_tmpdir(), *ex = "build/examples/encoders";
    char *out = NULL;
    if (access("build/examples/encoders/expr", X_OK) != 0)
        SKIP("examples not built (make builds them)");
    REQUIRE_EQ(ctxprof_test_sh("%s/expr '(7?)' '1+2*3?' > %s/expr.out", ex, d), 0);
    REQUIRE((out = gen_read(d, "expr.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "    main -> run -> parse_expr -> parse_term -> parse_factor -> parse_expr "
                        "-> parse_term -> parse_factor -> parse_number -> where_am_i\n  = 7\n");
    CHECK_CONTAINS(out, "    main -> run -> parse_expr -> parse_term#1 -> parse_factor#1 -> "
                        "parse_number -> where_am_i\n  = 7\n");
    free(out);
    CHECK_EQ(ctxprof_test_sh("%s/expr '1+' > /dev/null 2>&1", ex), 1);
    CHECK_EQ(ctxprof_test_sh("%s/unit_test | tail -n 1 | grep -qx 'unit test passed'", ex), 0);
    CHECK_EQ(ctxprof_test_sh("sh examples/encoders/demo.sh > %s/demo.out 2>&1", d), 0);
    REQUIRE((out = gen_read(d, "demo.out", NULL)) != NULL);
    {
        unsigned long steps = 0, dec[4] = {0, 0, 0, 0};
        const char *p = strstr(out, " steps; decoded to the true path: ");
        REQUIRE(p != NULL);
        while (p > out && p[-1] >= '0' && p[-1] <= '9')
            p--;
        CHECK_EQ(sscanf(p,
                        "%lu steps; decoded to the true path: pcce %lu, valence %lu, hcce %lu, "
                        "auto %lu",
                        &steps, &dec[0], &dec[1], &dec[2], &dec[3]),
                 5);
        CHECK(steps > 0);
        CHECK(dec[0] == steps && dec[1] == steps && dec[2] == steps && dec[3] == steps);
    }
    free(out);
}

/* A synthetic graph the size of gcc's (19,011 functions, 131,388 edges,
   459 complex SCCs): statistics, the header, and random walks decode. */
static void gen_gcc_sized(void)
{
    const char *d = ctxprof_test_tmpdir();
    char path[600];
    ctxprof_graph g;
    ctxprof_enc_stats s;
    ctxprof_enc_check_result r;
    ctxprof_error err;
    char *hdr = NULL;
    size_t len;
    if (ctxprof_test_sh("%s -O2 bench/enc_synth.c -o %s/enc_synth && %s/enc_synth -o %s/gcc.txt",
                        CTXPROF_TEST_CC, d, d, d) != 0)
        SKIP("cannot build bench/enc_synth.c");
    snprintf(path, sizeof path, "%s/gcc.txt", d);
    REQUIRE(pcce_graph_file(&g, path) == 0);
    REQUIRE_EQ(ctxprof_enc_stats_compute(&g, &s, &err), CTXPROF_OK);
    CHECK_EQ(s.nodes, 19011);
    CHECK_EQ(s.edges, 131388);
    CHECK_EQ(s.complex_sccs, 459);
    CHECK(s.cyclic_edges >= 28330);
    CHECK(s.pcce_bits > 64);   /* PCCE's id is cut into push edges ... */
    CHECK(s.pcce_push_edges > 0);
    CHECK(s.valence_bits > 64); /* ... Valence's spans words ... */
    CHECK(s.auto_bits <= 64);
    REQUIRE_EQ(ctxprof_enc_emit(&g, NULL, &hdr, &len, &err), CTXPROF_OK);
    CHECK(len > 1000000);
    ctxprof_graph_free_buffer(hdr, NULL);
    /* the issue's budget: under 200 MB with every scheme (the 115 MB of
       text are streamed to the file; kept in memory they took 235 MB) */
    if (access("build/ctxprof-gen", X_OK) == 0)
        CHECK_EQ(ctxprof_test_sh("ulimit -v 204800 && build/ctxprof-gen --all-schemes -o %s/all.h "
                                 "%s 2>/dev/null && test $(wc -c < %s/all.h) -gt 100000000",
                                 d, path, d),
                 0);
    pcce_check_all(&g, 12, 48, 5, &r); /* ... and everything decodes */
    CHECK(r.words_sum[CTXPROF_ENC_AUTO] <= r.words_sum[CTXPROF_ENC_HCCE]);
    ctxprof_graph_deinit(&g);
}

/* C++: gcc titles an inline function, a template or an in-class member
   function like a static one, "cp_a.cpp:_Z4hinli" and "cp_b.cpp:_Z4hinli",
   but the linker keeps one copy (COMDAT): the tool makes one node of them,
   so the one call site in the header has one encoding and both paths
   through it decode (the program is built and run in the plain
   configurations). Internal names (static, anonymous or namespace-static
   functions) stay one per file. */
static void gen_ci_cpp_inline(void)
{
    const char *d = ctxprof_test_tmpdir(), *tool = "build/ctxprof-gen";
    char cwd[512], path[600], *out = NULL;
    int k;
    if (access(tool, X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    if (ctxprof_test_sh("cd %s && echo 'int main(){return 0;}' > cprobe.cpp && g++ -O0 "
                        "-fcallgraph-info=su -c cprobe.cpp 2>/dev/null",
                        d) != 0)
        SKIP("no g++ with -fcallgraph-info=su");
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(path, sizeof path, "%s/ci_tmpl.h", d);
    REQUIRE(gen_write(path, "#ifdef BOOTSTRAP\n#define CTXPROF_CALL(e, s) s\n#else\n"
                            "#include \"cp_ctx.h\"\n#endif\nint where_am_i(int tag);\n"
                            "inline int hinl(int x)\n{\n    int r;\n"
                            "    CTXPROF_CALL(CTXPROF_EDGE(int_hinl_int_, int_where_am_i_int_, 0), "
                            "r = where_am_i(x));\n    return r;\n}\n") == 0);
    snprintf(path, sizeof path, "%s/cp_a.cpp", d);
    REQUIRE(gen_write(path, "#include \"ci_tmpl.h\"\nint top_a(int k);\n"
                            "int top_a(int k) { int r; CTXPROF_CALL(CTXPROF_EDGE(int_top_a_int_, "
                            "int_hinl_int_, 0), r = hinl(k)); return r; }\n") == 0);
    snprintf(path, sizeof path, "%s/cp_b.cpp", d);
    REQUIRE(gen_write(path, "#include \"ci_tmpl.h\"\nint top_b(int k);\n"
                            "int top_b(int k) { int r; CTXPROF_CALL(CTXPROF_EDGE(int_top_b_int_, "
                            "int_hinl_int_, 0), r = hinl(k)); return r; }\n"
                            "int top_a(int k);\nint main()\n{\n    int r;\n"
                            "    CTXPROF_CALL(CTXPROF_EDGE(int_main__, int_top_a_int_, 0), "
                            "r = top_a(1));\n"
                            "    CTXPROF_CALL(CTXPROF_EDGE(int_main__, int_top_b_int_, 0), "
                            "r += top_b(2));\n    return r == 2 ? 0 : 1;\n}\n") == 0);
    snprintf(path, sizeof path, "%s/cp_w.cpp", d);
    REQUIRE(gen_write(path, "#ifdef BOOTSTRAP\nint where_am_i(int tag);\n"
                            "int where_am_i(int tag) { return tag > 0; }\n#else\n"
                            "#define CTXPROF_IMPLEMENTATION\n#include \"cp_ctx.h\"\n"
                            "#include <cstdio>\nint where_am_i(int tag);\n"
                            "int where_am_i(int tag)\n{\n"
                            "    const ctxprof_enc_tables *t = ctxprof_gen_tables(CTXPROF_GEN_SCHEME);\n"
                            "    ctxprof_enc_view v;\n    ctxprof_error err;\n"
                            "    uint32_t path[64];\n    size_t n;\n    char text[512];\n"
                            "    ctxprof_enc_query(CTXPROF_GEN_TLS, CTXPROF_GEN_BASE, &v);\n"
                            "    if (ctxprof_enc_decode_view(t, &v, "
                            "CTXPROF_NODE(int_where_am_i_int_), path, 64, &n, &err))\n"
                            "        return 0;\n"
                            "    ctxprof_enc_format(t, 0, path, n, text, sizeof text);\n"
                            "    std::printf(\"[%d] %s\\n\", tag, text);\n    return 1;\n}\n"
                            "#endif\n") == 0);
    REQUIRE_EQ(ctxprof_test_sh("cd %s && g++ -O0 -fcallgraph-info=su -DBOOTSTRAP -c cp_a.cpp "
                               "cp_b.cpp cp_w.cpp",
                               d),
               0);
    /* one node for hinl: main, top_a, top_b, hinl, where_am_i */
    REQUIRE_EQ(ctxprof_test_sh("cd %s && %s/%s stats cp_a.ci cp_b.ci cp_w.ci > cp.stats", d, cwd,
                               tool),
               0);
    REQUIRE((out = gen_read(d, "cp.stats", NULL)) != NULL);
    CHECK_CONTAINS(out, "nodes=5\nedges=5\n");
    free(out);
    /* a training run's "call _Z5top_ai _Z4hinli" names that node */
    snprintf(path, sizeof path, "%s/cp.dyn", d);
    REQUIRE(gen_write(path, "ctxprof-callgraph 1\nroot main\ncall _Z5top_ai _Z4hinli\n"
                            "call _Z4hinli _Z10where_am_ii\n") == 0);
    REQUIRE_EQ(ctxprof_test_sh("cd %s && %s/%s -o cp_ctx.h cp_a.ci cp_b.ci cp_w.ci cp.dyn "
                               "2> cp.err",
                               d, cwd, tool),
               0);
    REQUIRE((out = gen_read(d, "cp.err", NULL)) != NULL);
    CHECK_STR(out, "");
    free(out);
    REQUIRE((out = gen_read(d, "cp_ctx.h", NULL)) != NULL);
    CHECK_CONTAINS(out, "ctxprof_gen_n_int_hinl_int_ = ");
    CHECK(strstr(out, "cpp__Z4hinli") == NULL);
    CHECK(strstr(out, "\"cp_a.cpp:") == NULL);
    CHECK_CONTAINS(out, "\"_Z4hinli\"");
    free(out);
    CHECK_EQ(ctxprof_test_sh("cd %s && %s/%s check cp_a.ci cp_b.ci cp_w.ci cp.dyn --walks 50 "
                             "> /dev/null",
                             d, cwd, tool),
             0);
    /* internal linkage stays per file: a static, an anonymous-namespace and
       a namespace-static function; a template, an in-class member and its
       lambda merge */
    for (k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/cp_i%d.cpp", d, k);
        REQUIRE(gen_write(path, "static int sfoo(int x) { return x; }\n"
                                "namespace { int anon(int x) { return x + 1; } }\n"
                                "namespace ns { static int nsf(int x) { return x + 2; } }\n"
                                "template <typename T> T tw(T x) { return x; }\n"
                                "struct S { int m(int x) { auto l = [](int y) { return y + 3; }; "
                                "return l(x); } };\n"
                                "int USE(int k);\n"
                                "int USE(int k) { S s; return sfoo(k) + anon(k) + ns::nsf(k) + "
                                "tw(k) + s.m(k); }\n") == 0);
    }
    REQUIRE_EQ(ctxprof_test_sh("cd %s && g++ -O0 -fcallgraph-info=su -DUSE=use0 -c cp_i0.cpp && "
                               "g++ -O0 -fcallgraph-info=su -DUSE=use1 -c cp_i1.cpp && "
                               "%s/%s stats --root _Z4use0i cp_i0.ci cp_i1.ci > cp_i.stats "
                               "2>/dev/null",
                               d, cwd, tool),
               0);
    REQUIRE((out = gen_read(d, "cp_i.stats", NULL)) != NULL);
    CHECK_CONTAINS(out, "nodes=11\n"); /* 2 x (use, sfoo, anon, nsf) + tw, S::m, lambda */
    free(out);
    if (ctxprof_test_under_valgrind())
        return;
#if !defined(CTXPROF_TEST_SANITIZED)
    /* the program: both paths through hinl decode */
    REQUIRE_EQ(ctxprof_test_sh("cd %s && g++ -O0 -I%s cp_a.cpp cp_b.cpp cp_w.cpp -o cp "
                               "> cp.log 2>&1 && ./cp > cp.out",
                               d, cwd),
               0);
    REQUIRE((out = gen_read(d, "cp.out", NULL)) != NULL);
    CHECK_STR(out, "[1] main -> _Z5top_ai -> _Z4hinli -> _Z10where_am_ii\n"
                   "[2] main -> _Z5top_bi -> _Z4hinli -> _Z10where_am_ii\n");
    free(out);
#endif
}

/* LTO: gcc titles the functions of an LTO unit "/tmp/ccXXXX.ltrans0.o:name"
   (a temporary file): the tool drops that prefix, so two builds give the
   same header and no temporary name shows; a static function two units
   each keep under one name stays two functions. */
static void gen_ci_lto(void)
{
    const char *d = ctxprof_test_tmpdir(), *tool = "build/ctxprof-gen", *cc = gen_ci_cc();
    char cwd[512], path[600], *out = NULL, *o2 = NULL;
    size_t n1, n2;
    int k;
    static const char *const tmp[2] = {"/tmp/ccOjb59w.ltrans0.o", "/dev/shm/cc9Zq1xA.ltrans0.o"};
    if (access(tool, X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    /* gcc -flto of: static int g(int x) { ... } int h(int x) { return g(g(x)) + TWICE(x); } */
    for (k = 0; k < 2; k++) {
        char text[2000];
        const char *t = tmp[k];
        snprintf(path, sizeof path, "%s/lto%d", d, k);
        mkdir(path, 0777);
        snprintf(text, sizeof text,
                 "graph: { title: \"%s\"\n"
                 "node: { title: \"%s:g\" label: \"g\\nff.c:1:12\\n16 bytes (static)\" }\n"
                 "node: { title: \"%s:h\" label: \"h\\nff.c:3:5\\n40 bytes (static)\" }\n"
                 "edge: { sourcename: \"%s:h\" targetname: \"%s:g\" label: \"ff.c:3:23\" }\n"
                 "edge: { sourcename: \"%s:h\" targetname: \"%s:g\" label: \"ff.c:3:23\" }\n"
                 "edge: { sourcename: \"%s:h\" targetname: \"%s:g\" label: \"ff.c:3:33\" }\n"
                 "node: { title: \"main\" label: \"main\\nff.c:4:5\\n32 bytes (static)\" }\n"
                 "edge: { sourcename: \"main\" targetname: \"%s:h\" label: \"ff.c:4:45\" }\n}\n",
                 t, t, t, t, t, t, t, t, t, t);
        snprintf(path, sizeof path, "%s/lto%d/ff.ltrans0.ltrans.ci", d, k);
        REQUIRE(gen_write(path, text) == 0);
        CHECK_EQ(ctxprof_test_sh("cd %s/lto%d && %s/%s --all-schemes -o ff_ctx.h "
                                 "ff.ltrans0.ltrans.ci 2> err.txt",
                                 d, k, cwd, tool),
                 0);
    }
    snprintf(path, sizeof path, "%s/lto0/ff_ctx.h", d);
    REQUIRE((out = (char *)ctxprof_test_slurp(path, &n1)) != NULL);
    snprintf(path, sizeof path, "%s/lto1/ff_ctx.h", d);
    REQUIRE((o2 = (char *)ctxprof_test_slurp(path, &n2)) != NULL);
    CHECK(n1 == n2 && memcmp(out, o2, n1) == 0);
    CHECK(strstr(out, "ltrans0.o") == NULL);
    CHECK_CONTAINS(out, "ctxprof_gen_n_h = ");
    CHECK_CONTAINS(out, "\n    \"g\",\n");
    CHECK_CONTAINS(out, "ctxprof_gen_e_h__g__1 = "); /* ff.c:3:23 and ff.c:3:33 */
    free(out);
    free(o2);
    REQUIRE((out = gen_read(d, "lto0/err.txt", NULL)) != NULL);
    CHECK_STR(out, "");
    free(out);
    /* two units that each keep a static "helper" */
    snprintf(path, sizeof path, "%s/lto0/p.ltrans0.ltrans.ci", d);
    REQUIRE(gen_write(path, "graph: { title: \"/tmp/ccA.ltrans0.o\"\n"
                            "node: { title: \"/tmp/ccA.ltrans0.o:helper\" label: "
                            "\"helper\\na.c:1:12\\n16 bytes (static)\" }\n"
                            "node: { title: \"main\" label: \"main\\na.c:2:5\\n32 bytes (static)\" }\n"
                            "edge: { sourcename: \"main\" targetname: \"/tmp/ccA.ltrans0.o:helper\" "
                            "label: \"a.c:2:20\" }\n"
                            "node: { title: \"f\" label: \"f\\nb.c:2:5\" shape : ellipse }\n"
                            "edge: { sourcename: \"main\" targetname: \"f\" label: \"a.c:2:30\" }\n"
                            "}\n") == 0);
    snprintf(path, sizeof path, "%s/lto0/p.ltrans1.ltrans.ci", d);
    REQUIRE(gen_write(path, "graph: { title: \"/tmp/ccA.ltrans1.o\"\n"
                            "node: { title: \"/tmp/ccA.ltrans1.o:helper\" label: "
                            "\"helper\\nb.c:1:12\\n16 bytes (static)\" }\n"
                            "node: { title: \"f\" label: \"f\\nb.c:2:5\\n32 bytes (static)\" }\n"
                            "edge: { sourcename: \"f\" targetname: \"/tmp/ccA.ltrans1.o:helper\" "
                            "label: \"b.c:2:20\" }\n}\n") == 0);
    CHECK_EQ(ctxprof_test_sh("cd %s/lto0 && %s/%s -o p.h p.ltrans0.ltrans.ci p.ltrans1.ltrans.ci "
                             "2> p.err",
                             d, cwd, tool),
             0);
    REQUIRE((out = gen_read(d, "lto0/p.err", NULL)) != NULL);
    CHECK_CONTAINS(out, "p.ltrans1.ltrans.ci: static 'helper' is defined in two LTO units; this "
                        "one is called ltrans1.o:helper");
    free(out);
    REQUIRE((out = gen_read(d, "lto0/p.h", NULL)) != NULL);
    CHECK_CONTAINS(out, "\n    \"helper\",\n");
    CHECK_CONTAINS(out, "\n    \"ltrans1.o:helper\",\n");
    CHECK(strstr(out, "ccA") == NULL);
    free(out);
    /* real LTO builds, twice: the same header; the static helpers of two
       files (gcc: helper.lto_priv.0 and .1) stay apart */
    if (!cc || ctxprof_test_sh("cd %s && %s -O0 -flto -flto-partition=one -fcallgraph-info=su "
                               "probe.c -o probe_lto > /dev/null 2>&1",
                               d, cc) != 0)
        SKIP("no gcc with -flto and -fcallgraph-info=su");
    snprintf(path, sizeof path, "%s/lto_a.c", d);
    REQUIRE(gen_write(path, "static int helper(int x) { return x + 1; }\n"
                            "int fa(int x);\nint fa(int x) { return helper(x); }\n") == 0);
    snprintf(path, sizeof path, "%s/lto_b.c", d);
    REQUIRE(gen_write(path, "static int helper(int x) { return x * 2; }\nint fa(int x);\n"
                            "int fb(int x);\nint fb(int x) { return helper(x) + fa(x); }\n"
                            "int main(int c, char **v) { (void)v; return fb(c); }\n") == 0);
    for (k = 0; k < 2; k++)
        REQUIRE_EQ(ctxprof_test_sh("cd %s && mkdir -p lb%d && cd lb%d && %s -O0 -flto "
                                   "-flto-partition=one -fcallgraph-info=su ../lto_a.c ../lto_b.c "
                                   "-o prog > /dev/null 2>&1 && %s/%s -o prog_ctx.h "
                                   "prog.ltrans0.ltrans.ci && %s/%s stats prog.ltrans0.ltrans.ci "
                                   "> stats.txt",
                                   d, k, k, cc, cwd, tool, cwd, tool),
                   0);
    snprintf(path, sizeof path, "%s/lb0/prog_ctx.h", d);
    REQUIRE((out = (char *)ctxprof_test_slurp(path, &n1)) != NULL);
    snprintf(path, sizeof path, "%s/lb1/prog_ctx.h", d);
    REQUIRE((o2 = (char *)ctxprof_test_slurp(path, &n2)) != NULL);
    CHECK(n1 == n2 && memcmp(out, o2, n1) == 0);
    CHECK(strstr(out, "ltrans0.o") == NULL);
    CHECK_CONTAINS(out, "\n    \"fb\",\n");
    free(out);
    free(o2);
    REQUIRE((out = gen_read(d, "lb0/stats.txt", NULL)) != NULL);
    CHECK_CONTAINS(out, "nodes=5\nedges=4\n"); /* main fb fa and two helpers */
    free(out);
}

/* Runs "TOOL pad ARGS" in d: its standard output (free it; standard error
   is in d/pad.err), or NULL when its exit status is not rc. */
static char *gen_pad_run(const char *d, const char *tool, const char *args, int rc)
{
    char cwd[512];
    if (!getcwd(cwd, sizeof cwd) ||
        ctxprof_test_sh("cd %s && %s/%s pad %s > pad.out 2> pad.err", d, cwd, tool, args) != rc)
        return NULL;
    return gen_read(d, "pad.out", NULL);
}

/* pad reads frame sizes from gcc's .ci files too (and from several
   FRAMES files), and a run that fails prints no partial report. */
static void gen_pad_frames(void)
{
    const char *d = ctxprof_test_tmpdir(), *tool = "build/ctxprof-gen";
    char path[600], *out = NULL;
    if (access(tool, X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    snprintf(path, sizeof path, "%s/pf.paths", d);
    REQUIRE(gen_write(path, "ctxprof-paths 1\npath 1 32 main\npath 5 96 main parse helper\n"
                            "path 4 96 main lex helper\npath 2 64 main parse\n"
                            "path 2 64 main lex\n") == 0);
    snprintf(path, sizeof path, "%s/pf.ci", d);
    REQUIRE(gen_write(path, "graph: { title: \"p.c\"\n"
                            "node: { title: \"main\" label: \"main\\np.c:9:5\\n32 bytes (static)\" }\n"
                            "node: { title: \"p.c:helper\" label: \"helper\\np.c:1:12\\n"
                            "32 bytes (static)\" }\n"
                            "node: { title: \"parse\" label: \"parse\\np.c:3:5\\n32 bytes (static)\" }\n"
                            "edge: { sourcename: \"main\" targetname: \"parse\" label: \"p.c:9:20\" }\n"
                            "edge: { sourcename: \"parse\" targetname: \"p.c:helper\" label: "
                            "\"p.c:3:20\" }\n}\n") == 0);
    snprintf(path, sizeof path, "%s/pf.su", d);
    REQUIRE(gen_write(path, "l.c:2:5:lex\t32\tstatic\n") == 0);
    snprintf(path, sizeof path, "%s/pf_bad.su", d);
    REQUIRE(gen_write(path, "junk\n") == 0);
    REQUIRE((out = gen_pad_run(d, tool, "pf.paths pf.ci", 0)) != NULL);
    CHECK_CONTAINS(out, "functions=4\nframes_known=3\nmax_frame_growth=");
    CHECK_CONTAINS(out, "\nprecise_after=");
    free(out);
    REQUIRE((out = gen_pad_run(d, tool, "-o pf.h pf.paths pf.ci pf.su", 0)) != NULL);
    CHECK_CONTAINS(out, "functions=4\nframes_known=4\n");
    free(out);
    /* nothing to pad: no frame grows (1, not 0) */
    snprintf(path, sizeof path, "%s/pf_one.paths", d);
    REQUIRE(gen_write(path, "ctxprof-paths 1\npath 1 32 main\npath 2 64 main parse\n") == 0);
    REQUIRE((out = gen_pad_run(d, tool, "pf_one.paths pf.ci", 0)) != NULL);
    CHECK_CONTAINS(out, "frames_known=2\nmax_frame_growth=1.0000\n");
    free(out);
    /* a bad FRAMES file: exit 1, the line at fault, and no report */
    REQUIRE((out = gen_pad_run(d, tool, "pf.paths pf.ci pf_bad.su", 1)) != NULL);
    CHECK_STR(out, "");
    free(out);
    REQUIRE((out = gen_read(d, "pad.err", NULL)) != NULL);
    CHECK_CONTAINS(out, "pf_bad.su:1: error: not a frame size line");
    free(out);
    REQUIRE((out = gen_pad_run(d, tool, "pf.paths nonexistent.su", 2)) != NULL);
    CHECK_STR(out, "");
    free(out);
}

/* gcc gives every call inside a nested or macro call the same label
   (g(g(x)), TWICE(x)): one call site each, sites numbered by label in
   input order; stats counts the repeats it merged. */
static void gen_ci_duplicate_calls(void)
{
    const char *d = ctxprof_test_tmpdir(), *tool = "build/ctxprof-gen", *cc = gen_ci_cc();
    char cwd[512], path[600], *out = NULL;
    if (access(tool, X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    if (!cc)
        SKIP("no compiler with -fcallgraph-info=su");
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(path, sizeof path, "%s/dup.c", d);
    REQUIRE(gen_write(path, "static int g(int x) { return x + 1; }\n"
                            "#define TWICE(x) (g(x) + g(x))\n"
                            "int h(int x);\nint h(int x) { return g(g(x)) + TWICE(x); }\n"
                            "int main(int c, char **v) { (void)v; return h(c); }\n") == 0);
    REQUIRE_EQ(ctxprof_test_sh("cd %s && %s -O0 -fcallgraph-info=su -c dup.c && %s/%s stats "
                               "dup.ci > dup.stats && %s/%s -o dup_ctx.h dup.ci",
                               d, cc, cwd, tool, cwd, tool),
               0);
    REQUIRE((out = gen_read(d, "dup.stats", NULL)) != NULL);
    CHECK_CONTAINS(out, "nodes=3\nedges=3\n");
    CHECK_CONTAINS(out, "\nci_merged_calls=2\n");
    free(out);
    REQUIRE((out = gen_read(d, "dup_ctx.h", NULL)) != NULL);
    CHECK_CONTAINS(out, "ctxprof_gen_e_h__g__0 = 0, /* dup.c:4:");
    CHECK_CONTAINS(out, "ctxprof_gen_e_h__g__1 = 1, /* dup.c:4:");
    CHECK(strstr(out, "ctxprof_gen_e_h__g__2") == NULL);
    free(out);
}

/* ---- function names and site labels: what a graph may hold ----
   One rule (ctxprof__graph_name_bad) for every way in: not empty, no
   control character. Blank, '#' and '%' are kept and ctxprof_graph_write
   escapes them (%20, %23, %25), so what it writes reads back the same. */

/* Writes g, reads the text into a fresh graph and writes that: the two
   texts are the same and the second graph has g's names, frames, edges and
   labels. Returns the text (ctxprof_graph_free_buffer) or NULL. */
static char *gen_roundtrip(const ctxprof_graph *g)
{
    ctxprof_graph g2;
    char *t1 = NULL, *t2 = NULL;
    size_t n1 = 0, n2 = 0, i;
    if (ctxprof_graph_write(g, &t1, &n1) != CTXPROF_OK) {
        CHECK(!"ctxprof_graph_write failed");
        return NULL;
    }
    ctxprof_graph_init(&g2, NULL);
    if (ctxprof_graph_parse(&g2, t1, n1, "written") != CTXPROF_OK) {
        CHECK_STR(ctxprof_graph_last_error(&g2), "(what was written reads back)");
        ctxprof_graph_deinit(&g2);
        return t1;
    }
    CHECK_EQ(g2.n_nodes, g->n_nodes);
    CHECK_EQ(g2.n_edges, g->n_edges);
    for (i = 0; i < g->n_nodes && i < g2.n_nodes; i++) {
        CHECK_STR(g2.nodes[i].name, g->nodes[i].name);
        CHECK_EQ(g2.nodes[i].frame, g->nodes[i].frame);
    }
    for (i = 0; i < g->n_edges && i < g2.n_edges; i++) {
        CHECK_EQ(g2.edges[i].caller, g->edges[i].caller);
        CHECK_EQ(g2.edges[i].callee, g->edges[i].callee);
        CHECK_STR(g2.edges[i].label ? g2.edges[i].label : "(none)",
                  g->edges[i].label ? g->edges[i].label : "(none)");
    }
    CHECK_EQ(ctxprof_graph_write(&g2, &t2, &n2), CTXPROF_OK);
    CHECK_STR(t2, t1);
    ctxprof_graph_free_buffer(t2, NULL);
    ctxprof_graph_deinit(&g2);
    return t1;
}

/* gcc input `text` is refused with CTXPROF_ERR_PARSE and `msg`; the graph
   it was read into stays as it was. */
static void gen_vcg_refused(const char *text, const char *msg)
{
    ctxprof_graph g;
    char *before = NULL, *after = NULL;
    size_t nb = 0, na = 0;
    REQUIRE(pcce_graph_text(&g, "ctxprof-callgraph 1\ncall main f site=s\n") == 0);
    REQUIRE_EQ(ctxprof_graph_write(&g, &before, &nb), CTXPROF_OK);
    CHECK_EQ(ctxprof_graph_parse(&g, text, strlen(text), "x.ci"), CTXPROF_ERR_PARSE);
    CHECK_CONTAINS(ctxprof_graph_last_error(&g), msg);
    CHECK_EQ(ctxprof_graph_write(&g, &after, &na), CTXPROF_OK);
    CHECK_STR(after, before);
    ctxprof_graph_free_buffer(before, NULL);
    ctxprof_graph_free_buffer(after, NULL);
    ctxprof_graph_deinit(&g);
}

/* gcc input `text` loads; then the graph writes text holding `written`
   and reads back the same. */
static void gen_vcg_kept(const char *text, const char *name, const char *written)
{
    ctxprof_graph g;
    char *t;
    ctxprof_graph_init(&g, NULL);
    REQUIRE_EQ(ctxprof_graph_parse(&g, text, strlen(text), "x.ci"), CTXPROF_OK);
    CHECK(ctxprof_graph_find(&g, name) >= 0);
    t = gen_roundtrip(&g);
    CHECK_CONTAINS(t, written);
    ctxprof_graph_free_buffer(t, NULL);
    REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
    t = gen_roundtrip(&g);
    ctxprof_graph_free_buffer(t, NULL);
    ctxprof_graph_deinit(&g);
}

/* An empty title, sourcename or targetname: no function name (was written
   "func " and then refused: "func needs a function name"). */
static void gen_graph_names_vcg_empty(void)
{
    gen_vcg_refused("graph: { node: { title: \"\" } }",
                    "x.ci:1:16: title \"\" is empty (a function name is not empty");
    gen_vcg_refused("graph: { edge: { sourcename: \"\" targetname: \"f\" } }",
                    "x.ci:1:16: sourcename \"\" is empty");
    gen_vcg_refused("graph: { edge: { sourcename: \"f\" targetname: \"\" } }",
                    "x.ci:1:16: targetname \"\" is empty");
}

/* '#' starts a comment of the text format: title f#x was written "func
   f#x" and read back as f. Now kept, written f%23x. */
static void gen_graph_names_vcg_hash(void)
{
    gen_vcg_kept("graph: { node: { title: \"f#x\" }\n"
                 "edge: { sourcename: \"main\" targetname: \"f#x\" label: \"a#1.c:2:3\" } }",
                 "f#x", "call main f%23x site=a%231.c:2:3\n");
}

/* A blank splits tokens: gcc titles a static function of "my file.c"
   "my file.c:helper" and labels its calls "my file.c:2:25" (its C++
   display names, "int S::f(int, char)", are labels, not names). Kept,
   written with %20; a '%' is written %25. A real gcc .ci file of such a
   source when gcc is here. */
static void gen_graph_names_vcg_blank(void)
{
    const char *cc = gen_ci_cc(), *d = ctxprof_test_tmpdir();
    char path[600];
    gen_vcg_kept("graph: { title: \"my file.c\"\n"
                 "node: { title: \"my file.c:helper\" label: \"helper\\nmy file.c:1:12\\n16 bytes "
                 "(static)\" }\n"
                 "node: { title: \"_ZN1S1fEic\" label: \"int S::f(int, char)\\nt.cpp:3:16\" }\n"
                 "edge: { sourcename: \"_ZN1S1fEic\" targetname: \"my file.c:helper\" label: "
                 "\"my file.c:2:25\" }\n"
                 "edge: { sourcename: \"100%.c:f\" targetname: \"a%20b\" }\n"
                 "edge: { sourcename: \"main\" targetname: \"_ZN1S1fEic\" } }",
                 "my file.c:helper",
                 "call _ZN1S1fEic my%20file.c:helper site=my%20file.c:2:25\n"
                 "call 100%25.c:f a%2520b\n");
    if (!cc)
        return;
    snprintf(path, sizeof path, "%s/my file#1.c", d);
    REQUIRE(gen_write(path, "static int helper(int x) { return x + 1; }\n"
                            "int mid(int x) { return helper(x); }\n"
                            "int main(void) { return mid(2); }\n") == 0);
    REQUIRE_EQ(ctxprof_test_sh("cd %s && %s -O0 -fcallgraph-info=su -c 'my file#1.c'", d, cc), 0);
    {
        ctxprof_graph g;
        char *t;
        snprintf(path, sizeof path, "%s/my file#1.ci", d);
        ctxprof_graph_init(&g, NULL);
        REQUIRE_EQ(ctxprof_graph_load(&g, path), CTXPROF_OK);
        CHECK(ctxprof_graph_find(&g, "my file#1.c:helper") >= 0);
        REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
        t = gen_roundtrip(&g);
        CHECK_CONTAINS(t, "call mid my%20file%231.c:helper site=my%20file%231.c:2:");
        ctxprof_graph_free_buffer(t, NULL);
        ctxprof_graph_deinit(&g);
    }
}

/* A line break, tab, CR or other control character: a newline in a title
   wrote a line of its own ("f\nroot f" injected a root line). Refused,
   shown escaped. */
static void gen_graph_names_vcg_control(void)
{
    gen_vcg_refused("graph: { node: { title: \"f\nroot f\" } }",
                    "x.ci:1:16: title \"f\\nroot f\" holds a control character");
    gen_vcg_refused("graph: { node: { title: \"f\\nroot f\" } }",
                    "x.ci:1:16: title \"f\\nroot f\" holds a control character");
    gen_vcg_refused("graph: { node: { title: \"f\tg\" } }", "title \"f\\tg\" holds a control");
    gen_vcg_refused("graph: { edge: { sourcename: \"a\rb\" targetname: \"f\" } }",
                    "sourcename \"a\\rb\" holds a control");
    gen_vcg_refused("graph: { edge: { sourcename: \"a\" targetname: \"f\x01\" } }",
                    "targetname \"f\\x01\" holds a control");
    gen_vcg_refused("graph: { edge: { sourcename: \"a\" targetname: \"f\" label: \"x.c:1:2\ncall "
                    "a b\" } }",
                    "label \"x.c:1:2\\ncall a b\" holds a control character (a call site label");
}

/* An empty edge label was written "site=", which the reader refuses. */
static void gen_graph_names_vcg_empty_label(void)
{
    gen_vcg_refused("graph: { edge: { sourcename: \"a\" targetname: \"b\" label: \"\" } }",
                    "x.ci:1:16: label \"\" is empty (a call site label is not empty");
    gen_vcg_refused("graph: { edge: { sourcename: \"a\" targetname: \"__indirect_call\" label: "
                    "\"\" } }",
                    "x.ci:1:16: label \"\" is empty");
}

/* The API refuses with CTXPROF_ERR_INVAL and the graph stays empty. */
static void gen_api_refused(ctxprof_graph *g, const char *msg)
{
    CHECK_EQ(g->error.status, CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_graph_last_error(g), msg);
    CHECK_EQ(g->n_nodes, 0);
    CHECK_EQ(g->n_edges, 0);
}

static void gen_graph_names_api_empty(void)
{
    ctxprof_graph g;
    ctxprof_graph_desc d;
    ctxprof_graph_init(&g, NULL);
    CHECK_EQ(ctxprof_graph_add_node(&g, "", 0), -1);
    gen_api_refused(&g, "function name '' is empty");
    CHECK_EQ(ctxprof_graph_add_edge(&g, "", "b", NULL), -1);
    gen_api_refused(&g, "caller '' is empty");
    CHECK_EQ(ctxprof_graph_add_edge(&g, "a", "", NULL), -1);
    gen_api_refused(&g, "callee '' is empty");
    CHECK_EQ(ctxprof_graph_set_root(&g, ""), CTXPROF_ERR_INVAL);
    gen_api_refused(&g, "root name '' is empty");
    ctxprof_graph_deinit(&g);
    /* a desc root "" was kept and written "root " */
    memset(&d, 0, sizeof d);
    d.root = "";
    CHECK_EQ(ctxprof_graph_init(&g, &d), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_graph_last_error(&g), "root name '' is empty");
    ctxprof_graph_deinit(&g);
}

static void gen_graph_names_api_hash(void)
{
    ctxprof_graph g;
    char *t;
    ctxprof_graph_init(&g, NULL);
    CHECK_EQ(ctxprof_graph_set_root(&g, "m#1"), CTXPROF_OK);
    CHECK_EQ(ctxprof_graph_add_node(&g, "f#x", 8), 0);
    CHECK_EQ(ctxprof_graph_add_edge(&g, "m#1", "f#x", "#"), 0);
    t = gen_roundtrip(&g);
    CHECK_STR(t, "ctxprof-callgraph 1\nroot m%231\nfunc f%23x frame=8\nfunc m%231\n"
                 "call m%231 f%23x site=%23\n");
    ctxprof_graph_free_buffer(t, NULL);
    ctxprof_graph_deinit(&g);
}

static void gen_graph_names_api_blank(void)
{
    ctxprof_graph g;
    char *t;
    ctxprof_graph_init(&g, NULL);
    CHECK_EQ(ctxprof_graph_add_edge(&g, "main", "operator new", "my file.c:1:2"), 0);
    CHECK_EQ(ctxprof_graph_add_edge(&g, "operator new", "foo(int, char)", NULL), 1);
    CHECK_EQ(ctxprof_graph_add_edge(&g, "main", "50%", "%20"), 2);
    REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
    t = gen_roundtrip(&g);
    CHECK_STR(t, "ctxprof-callgraph 1\nroot main\nfunc main\nfunc operator%20new\n"
                 "func foo(int,%20char)\nfunc 50%25\n"
                 "call main operator%20new site=my%20file.c:1:2\n"
                 "call operator%20new foo(int,%20char)\ncall main 50%25 site=%2520\n");
    ctxprof_graph_free_buffer(t, NULL);
    ctxprof_graph_deinit(&g);
}

static void gen_graph_names_api_control(void)
{
    ctxprof_graph g;
    ctxprof_graph_desc d;
    ctxprof_graph_init(&g, NULL);
    CHECK_EQ(ctxprof_graph_add_node(&g, "f\nroot f", 0), -1);
    gen_api_refused(&g, "function name 'f\\nroot f' holds a control character");
    CHECK_EQ(ctxprof_graph_add_edge(&g, "a\tb", "c", NULL), -1);
    gen_api_refused(&g, "caller 'a\\tb' holds a control character");
    CHECK_EQ(ctxprof_graph_add_edge(&g, "a", "c\r", NULL), -1);
    gen_api_refused(&g, "callee 'c\\r' holds a control character");
    CHECK_EQ(ctxprof_graph_add_edge(&g, "a", "c", "x\n"), -1);
    gen_api_refused(&g, "site label 'x\\n' holds a control character");
    CHECK_EQ(ctxprof_graph_set_root(&g, "m\x7f"), CTXPROF_ERR_INVAL);
    gen_api_refused(&g, "root name 'm\\x7f' holds a control character");
    ctxprof_graph_deinit(&g);
    memset(&d, 0, sizeof d);
    d.root = "main\ncall a b";
    CHECK_EQ(ctxprof_graph_init(&g, &d), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(ctxprof_graph_last_error(&g), "root name 'main\\ncall a b' holds a control");
    ctxprof_graph_deinit(&g);
    { /* a long name is cut in the message */
        char big[300];
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 2] = '\n';
        big[sizeof big - 1] = '\0';
        ctxprof_graph_init(&g, NULL);
        CHECK_EQ(ctxprof_graph_add_node(&g, big, 0), -1);
        gen_api_refused(&g, "xxxxxxxxxx...' holds a control character");
        CHECK(strlen(ctxprof_graph_last_error(&g)) < 150);
        ctxprof_graph_deinit(&g);
    }
}

static void gen_graph_names_api_empty_label(void)
{
    ctxprof_graph g;
    ctxprof_graph_init(&g, NULL);
    CHECK_EQ(ctxprof_graph_add_edge(&g, "a", "b", ""), -1);
    gen_api_refused(&g, "site label '' is empty");
    ctxprof_graph_deinit(&g);
}

/* The text reader's side of the escapes: %20, %23 and %25 only (any other
   '%' is itself, as it always was), in names and labels. */
static void gen_graph_names_text_escapes(void)
{
    ctxprof_graph g;
    char *t;
    const char *text = "ctxprof-callgraph 1\nroot m%20a%23in\n"
                       "call m%20a%23in f%41%2%25 site=%20#x\ncall f%41%2%25 50%\n";
    ctxprof_graph_init(&g, NULL);
    REQUIRE_EQ(ctxprof_graph_parse(&g, text, strlen(text), "e.txt"), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
    CHECK_STR(g.nodes[g.root].name, "m a#in");
    CHECK(ctxprof_graph_find(&g, "f%41%2%") >= 0);
    CHECK(ctxprof_graph_find(&g, "50%") >= 0);
    CHECK_STR(g.edges[0].label, " ");
    t = gen_roundtrip(&g);
    CHECK_STR(t, "ctxprof-callgraph 1\nroot m%20a%23in\nfunc m%20a%23in\nfunc f%2541%252%25\n"
                 "func 50%25\ncall m%20a%23in f%2541%252%25 site=%20\ncall f%2541%252%25 50%25\n");
    ctxprof_graph_free_buffer(t, NULL);
    ctxprof_graph_deinit(&g);
}

/* The property: every seed graph of tests/data (text and gcc) loads,
   writes, loads again and writes the same text, before and after finish. */
static void gen_graph_roundtrip_seeds(void)
{
    static const char *const dirs[] = {"tests/data/fuzz/graph_text", "tests/data/fuzz/graph_ci"};
    static const char *const files[] = {"tests/data/fig1.txt", "tests/data/fig3.txt",
                                        "examples/encoders/expr.callgraph"};
    char paths[64][600];
    size_t n = 0, i, k;
    for (i = 0; i < sizeof files / sizeof files[0]; i++)
        snprintf(paths[n++], sizeof paths[0], "%s", files[i]);
    for (k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
        DIR *dir = opendir(dirs[k]);
        struct dirent *e;
        REQUIRE(dir != NULL);
        while ((e = readdir(dir)) != NULL && n < sizeof paths / sizeof paths[0])
            if (e->d_name[0] != '.')
                snprintf(paths[n++], sizeof paths[0], "%s/%s", dirs[k], e->d_name);
        closedir(dir);
    }
    CHECK(n >= 8);
    for (i = 0; i < n; i++) {
        ctxprof_graph g;
        char *t;
        ctxprof_graph_init(&g, NULL);
        if (ctxprof_graph_load(&g, paths[i]) != CTXPROF_OK) {
            CHECK_STR(ctxprof_graph_last_error(&g), paths[i]);
            ctxprof_graph_deinit(&g);
            continue;
        }
        ctxprof_graph_free_buffer(gen_roundtrip(&g), NULL);
        if (ctxprof_graph_finish(&g) == CTXPROF_OK) {
            t = gen_roundtrip(&g);
            CHECK(t && strncmp(t, "ctxprof-callgraph 1\nroot ", 25) == 0);
            ctxprof_graph_free_buffer(t, NULL);
        }
        ctxprof_graph_deinit(&g);
    }
}

/* C++: an exception that leaves calls through CTXPROF_CALL (a recursive
   edge among them) restores the encoding, in every scheme: after the catch
   main decodes as main, and later calls decode right. A call whose
   template arguments' commas are not in parentheses is one call. */
static void gen_call_throw(void)
{
    static const char graph[] = "ctxprof-callgraph 1\nroot main\ncall main f\ncall main g\n"
                                "call f f\ncall f h\ncall g h\n";
    static const char prog[] =
        "#define CTXPROF_IMPLEMENTATION\n"
        "#include \"e_ctx.h\"\n"
        "#include <cstdio>\n"
        "#include <stdexcept>\n"
        "static void show(unsigned node, const char *where)\n"
        "{\n"
        "    ctxprof_enc_view v;\n"
        "    uint32_t p[64];\n"
        "    size_t n = 0;\n"
        "    ctxprof_error err;\n"
        "    char buf[256];\n"
        "    const ctxprof_enc_tables *t = ctxprof_gen_tables(CTXPROF_GEN_SCHEME);\n"
        "    ctxprof_enc_query(CTXPROF_GEN_TLS, CTXPROF_GEN_BASE, &v);\n"
        "    if (ctxprof_enc_decode_view(t, &v, node, p, 64, &n, &err) != CTXPROF_OK) {\n"
        "        std::printf(\"%s: %s\\n\", where, err.detail);\n"
        "        return;\n"
        "    }\n"
        "    ctxprof_enc_format(t, n ? t->edge_caller[p[0]] : node, p, n, buf, sizeof buf);\n"
        "    std::printf(\"%s: %s\\n\", where, buf);\n"
        "}\n"
        "static void h(bool thr)\n"
        "{\n"
        "    show(CTXPROF_NODE(h), \"h\");\n"
        "    if (thr)\n"
        "        throw std::runtime_error(\"x\");\n"
        "}\n"
        "template <typename T, int N> static T g()\n"
        "{\n"
        "    CTXPROF_CALL(CTXPROF_EDGE(g, h, 0), h(false));\n"
        "    return N;\n"
        "}\n"
        "static void f(int n, bool thr)\n"
        "{\n"
        "    if (n)\n"
        "        CTXPROF_CALL(CTXPROF_EDGE(f, f, 0), f(n - 1, thr));\n"
        "    else\n"
        "        CTXPROF_CALL(CTXPROF_EDGE(f, h, 0), h(thr));\n"
        "}\n"
        "int main()\n"
        "{\n"
        "    try {\n"
        "        CTXPROF_CALL(CTXPROF_EDGE(main, f, 0), f(3, true));\n"
        "    } catch (const std::exception &) {\n"
        "    }\n"
        "    show(CTXPROF_NODE(main), \"main\");\n"
        "    int r = 0;\n"
        "    CTXPROF_CALL(CTXPROF_EDGE(main, g, 0), r = g<int, 2>());\n"
        "    return r == 2 ? 0 : 1;\n"
        "}\n";
    static const char *const schemes[] = {"pcce", "valence", "hcce", "auto"};
    const char *d = ctxprof_test_tmpdir(), *cxx = strstr(CTXPROF_TEST_CC, "clang") ? "clang++" : "g++";
    char path[600], cwd[400], name[32], *out;
    size_t k;
    PLAIN_BUILD_ONLY();
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(path, sizeof path, "%s/throw.cg", d);
    REQUIRE_EQ(ctxprof_test_put(path, graph), 0);
    snprintf(path, sizeof path, "%s/throw.cpp", d);
    REQUIRE_EQ(ctxprof_test_put(path, prog), 0);
    for (k = 0; k < sizeof schemes / sizeof schemes[0]; k++) {
        CHECK_EQ(ctxprof_test_sh("build/ctxprof-gen --scheme %s -o %s/e_ctx.h %s/throw.cg && cd %s "
                                 "&& %s -std=c++11 -O2 -Wall -Wextra -Werror -Wshadow -I%s -I. "
                                 "throw.cpp -o throw && ./throw > throw.%s.out",
                                 schemes[k], d, d, d, cxx, cwd, schemes[k]),
                 0);
        snprintf(name, sizeof name, "throw.%s.out", schemes[k]);
        if ((out = gen_read(d, name, NULL)) != NULL) {
            CHECK_STR(out, "h: main -> f -> f -> f -> f -> h\nmain: main\nh: main -> g -> h\n");
            free(out);
        }
    }
}

/* The numeric options of check at and past their bounds: past, exit 2
   and the option's own message (not some later complaint); at, a run. */
static void gen_check_option_bounds(void)
{
    static const struct {
        const char *args;
        int rc;
        const char *msg; /* on standard error, for rc 2 */
    } cases[] = {
        {"--walks 0", 2, "--walks takes a positive number, not '0'"},
        {"--walks -1", 2, "--walks takes a positive number, not '-1'"},
        {"--walks x", 2, "--walks takes a positive number, not 'x'"},
        {"--walks 1 --depth 0", 2, "--depth takes 1 .. 1000000, not '0'"},
        {"--walks 1 --depth 1000001", 2, "--depth takes 1 .. 1000000, not '1000001'"},
        {"--walks 1 --depth 5000000", 2, "--depth takes 1 .. 1000000, not '5000000'"},
        {"--walks 1 --depth 4294967297", 2, "--depth takes 1 .. 1000000, not '4294967297'"},
        {"--walks 1 --steps 0", 2, "--steps takes 1 .. 100000000, not '0'"},
        {"--walks 1 --steps 100000001", 2, "--steps takes 1 .. 100000000, not '100000001'"},
        {"--walks 1 --depth 1000000", 0, NULL},
        {"--walks 1 --depth 1", 0, NULL},
        {"--walks 1 --steps 100000000 --depth 10", 0, NULL},
    };
    const char *d = ctxprof_test_tmpdir(), *tool = "build/ctxprof-gen";
    size_t c;
    if (access(tool, X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int fails = ctxprof_test_failed;
        char *out;
        CHECK_EQ(ctxprof_test_sh("%s check tests/data/fig3.txt %s > %s/bounds.out 2> %s/bounds.err",
                                 tool, cases[c].args, d, d),
                 cases[c].rc);
        if (cases[c].msg) {
            REQUIRE((out = gen_read(d, "bounds.err", NULL)) != NULL);
            CHECK_CONTAINS(out, cases[c].msg);
            free(out);
            REQUIRE((out = gen_read(d, "bounds.out", NULL)) != NULL);
            CHECK_STR(out, "");
            free(out);
        } else {
            REQUIRE((out = gen_read(d, "bounds.out", NULL)) != NULL);
            CHECK_CONTAINS(out, "checked=");
            CHECK(strstr(out, "checked=0\n") == NULL);
            free(out);
        }
        if (ctxprof_test_failed != fails)
            fprintf(stderr, "  with check %s\n", cases[c].args);
    }
}

/* Runs build/ctxprof-gen with the arguments (a shell fragment, printf
   style, run in the repository), standard output to d/tool.out unless the
   arguments redirect it, and checks
   its exit status and that its standard error holds msg (NULL: anything). */
static CTXPROF__PRINTF(3, 4) void gen_tool_expect(int rc, const char *msg, const char *fmt, ...)
{
    const char *d = ctxprof_test_tmpdir();
    char args[2000], *err;
    int fails = ctxprof_test_failed;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    /* the redirections first: one in args wins */
    CHECK_EQ(ctxprof_test_sh("build/ctxprof-gen > %s/tool.out 2> %s/tool.err %s", d, d, args), rc);
    if (msg && (err = gen_read(d, "tool.err", NULL)) != NULL) {
        CHECK_CONTAINS(err, msg);
        free(err);
    }
    if (ctxprof_test_failed != fails)
        fprintf(stderr, "  with ctxprof-gen %s\n", args);
}

/* Options are matched whole (a blank in an unknown one made it match the
   list of another command's options, and it took a value); each at most
   once; every subcommand has --help. */
static void gen_cli_options(void)
{
    static const char *const helps[] = {"stats", "check", "callgraph", "pad", ""};
    const char *d = ctxprof_test_tmpdir(), *E = "tests/data/fig3.txt";
    char *out;
    size_t i;
    if (access("build/ctxprof-gen", X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    gen_tool_expect(2, "unknown option --depth steps", "check %s --walks 5 '--depth steps' 3", E);
    gen_tool_expect(2, "unknown option --bits scheme", "'--bits scheme' 7 -o %s/x1.h %s", d, E);
    CHECK_EQ(ctxprof_test_sh("test -e %s/x1.h", d), 1);
    gen_tool_expect(2, "unknown option --o", "--o %s/x2.h %s", d, E);
    gen_tool_expect(2, "unknown option -bits", "-bits 32 %s", E);
    gen_tool_expect(2, "unknown option --all", "--all %s", E);
    gen_tool_expect(2, "option -o given twice", "-o %s/a.h -o %s/b.h %s", d, d, E);
    CHECK_EQ(ctxprof_test_sh("test -e %s/a.h || test -e %s/b.h", d, d), 1);
    gen_tool_expect(2, "option --walks given twice", "check %s --walks 5 --walks=6", E);
    gen_tool_expect(2, "option --all-schemes given twice", "--all-schemes --all-schemes %s", E);
    gen_tool_expect(2, "option --wrap given twice", "pad --wrap --wrap x.paths");
    gen_tool_expect(0, NULL, "--bits=64 --scheme pcce -o %s/ok.h %s", d, E);
    for (i = 0; i < sizeof helps / sizeof helps[0]; i++) {
        gen_tool_expect(0, NULL, "%s --help", helps[i]);
        REQUIRE((out = gen_read(d, "tool.out", NULL)) != NULL);
        CHECK_CONTAINS(out, i == 3 ? "pad computes frame padding" : "usage: ctxprof-gen");
        if (i < 3)
            CHECK_CONTAINS(out, helps[i]);
        free(out);
        gen_tool_expect(0, NULL, "%s %s --bogus -h", helps[i], E);
    }
}

/* Output that cannot be written (a full disk) is an error with a message
   and exit status 2 in every command (stats, check, --help, --version and
   pad's report exited 0 or 2 silently); pad -o with its report lost
   leaves the old table (it was replaced first). */
static void gen_cli_stdout_full(void)
{
    const char *d = ctxprof_test_tmpdir(), *E = "tests/data/fig3.txt";
    const char *W = "tests/data/fuzz/pad/wrap.paths";
    const char *full = "error: writing standard output: No space left on device";
    if (access("build/ctxprof-gen", X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    if (access("/dev/full", W_OK) != 0)
        SKIP("no /dev/full");
    gen_tool_expect(2, full, "stats %s > /dev/full", E);
    gen_tool_expect(2, full, "check %s --walks 3 > /dev/full", E);
    gen_tool_expect(2, full, "--help > /dev/full");
    gen_tool_expect(2, full, "stats --help > /dev/full");
    gen_tool_expect(2, full, "--version > /dev/full");
    gen_tool_expect(2, full, "%s > /dev/full", E);
    gen_tool_expect(2, full, "callgraph %s > /dev/full", W);
    gen_tool_expect(2, "error: writing the report to standard output: No space left on device",
                    "pad %s > /dev/full", W);
    gen_tool_expect(2, "error: writing standard output: No space left on device",
                    "pad -o - %s > /dev/full", W);
    REQUIRE(ctxprof_test_sh("echo old > %s/p.h", d) == 0);
    gen_tool_expect(2, "No space left on device; the table was not written",
                    "pad -o %s/p.h %s > /dev/full", d, W);
    CHECK_EQ(ctxprof_test_sh("test \"$(cat %s/p.h)\" = old", d), 0);
    CHECK_EQ(ctxprof_test_sh("ls %s | grep -q 'p.h.tmp'", d), 1);
    gen_tool_expect(0, NULL, "pad -o %s/p.h %s", d, W);
    CHECK_EQ(ctxprof_test_sh("grep -q CTXPROF_PAD_ %s/p.h", d), 0);
}

/* An output that is one of the inputs (the same file: by name, through a
   link, or as standard input) is refused before anything is read or
   written; it was replaced by the header or the table. */
static void gen_cli_output_is_input(void)
{
    const char *d = ctxprof_test_tmpdir();
    const char *in = "the input";
    if (access("build/ctxprof-gen", X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    REQUIRE(ctxprof_test_sh("cd %s && cp %s/tests/data/fig3.txt g.cg && cp g.cg g.orig && "
                            "ln -f g.cg g.hard && ln -sf g.cg g.sym && "
                            "cp %s/tests/data/fuzz/pad/wrap.paths t.paths && cp t.paths t.orig",
                            d, getcwd((char[512]){0}, 512), getcwd((char[512]){0}, 512)) == 0);
    gen_tool_expect(2, in, "-o %s/g.cg %s/g.cg", d, d);
    gen_tool_expect(2, in, "-o %s/g.hard %s/fig3.txt tests/data/fig3.txt %s/g.cg", d, d, d);
    gen_tool_expect(2, in, "-o %s/g.sym tests/data/fig3.txt %s/g.cg", d, d);
    gen_tool_expect(2, in, "--all-schemes -o %s/g.cg - < %s/g.cg", d, d);
    gen_tool_expect(2, in, "pad -o %s/t.paths %s/t.paths", d, d);
    gen_tool_expect(2, in, "pad -o %s/g.cg %s/t.paths %s/g.cg", d, d, d);
    gen_tool_expect(2, in, "callgraph -o %s/t.paths %s/t.paths", d, d);
    CHECK_EQ(ctxprof_test_sh("cmp -s %s/g.cg %s/g.orig && cmp -s %s/t.paths %s/t.orig", d, d, d, d),
             0);
    gen_tool_expect(0, NULL, "-o %s/g.h %s/g.cg", d, d); /* a new file, or another one: fine */
    gen_tool_expect(0, NULL, "-o %s/g.h %s/g.cg", d, d);
}

/* SIGINT, SIGTERM and SIGHUP while the header is written remove the
   temporary file (a 20000-function graph with --all-schemes left 50 MB of
   it); the tool still dies of the signal. A signal the tool was started
   with ignored (nohup) stays ignored. */
static void gen_cli_signal_cleanup(void)
{
    static const int sigs[4] = {SIGINT, SIGTERM, SIGHUP, 0};
    const char *d = ctxprof_test_tmpdir();
    char dir[600], graph[700], out[700];
    FILE *f;
    uint64_t x = 1;
    int i, k;
    if (access("build/ctxprof-gen", X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    snprintf(dir, sizeof dir, "%s/sig", d);
    mkdir(dir, 0777);
    snprintf(graph, sizeof graph, "%s/big.cg", dir);
    snprintf(out, sizeof out, "%s/big.h", dir);
    REQUIRE((f = fopen(graph, "w")) != NULL);
    fprintf(f, "ctxprof-callgraph 1\nroot f0\n");
    for (i = 1; i < 20000; i++) {
        x = ctxprof_mix64(x);
        fprintf(f, "call f%llu f%d\n", (unsigned long long)(x % (uint64_t)i), i);
    }
    for (i = 0; i < 20000; i++)
        for (k = 0; k < 2; k++) {
            x = ctxprof_mix64(x);
            fprintf(f, "call f%d f%llu site=s%d\n", i, (unsigned long long)(x % 20000), k);
        }
    REQUIRE(fclose(f) == 0);
    for (k = 0; k < 4; k++) {
        int sig = sigs[k] ? sigs[k] : SIGINT, st = 0, seen = 0, spins;
        pid_t pid;
        ctxprof_test_sh("rm -f %s/big.h*", dir);
        pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            signal(sig, sigs[k] ? SIG_DFL : SIG_IGN); /* k = 3: as under nohup */
            dup2(null, 2);
            execl("build/ctxprof-gen", "ctxprof-gen", "--all-schemes", "-o", out, graph,
                  (char *)NULL);
            _exit(127);
        }
        /* wait for the temporary file, then signal */
        for (spins = 0; spins < 4000000 && !seen; spins++) {
            DIR *dp = opendir(dir);
            struct dirent *de;
            while (dp && (de = readdir(dp)) != NULL)
                seen |= strncmp(de->d_name, "big.h.tmp", 9) == 0;
            if (dp)
                closedir(dp);
        }
        CHECK(seen);
        kill(pid, sig);
        REQUIRE(waitpid(pid, &st, 0) == pid);
        if (sigs[k]) {
            CHECK(WIFSIGNALED(st) && WTERMSIG(st) == sig);
            CHECK_EQ(ctxprof_test_sh("ls %s | grep -q 'big.h'", dir), 1); /* nothing left */
        } else {
            CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
            CHECK_EQ(ctxprof_test_sh("ls %s | grep -q 'big.h.tmp'", dir), 1);
            CHECK_EQ(access(out, F_OK), 0);
        }
    }
}

/* -p and --guard are checked before the graphs are read (exit 2): a
   prefix in ctxprof.h's namespace gave a header that redefined the
   library's names, a guard that is no identifier one that did not
   compile; a long prefix is fine (it was refused as "not the start of a C
   identifier"). With -o, the default guard has the prefix in it: two
   headers called ctx.h with -p lib_ and -p app_ were both CTX_H_INCLUDED,
   and the second one included was skipped. */
static void gen_cli_prefix_guard(void)
{
    static const char *const bad[][2] = {
        {"ctxprof_", "prefix 'ctxprof_' is in ctxprof.h's namespace"},
        {"ctxprof_enc_", "prefix 'ctxprof_enc_' is in ctxprof.h's namespace"},
        {"CTXPROF_GEN_", "prefix 'CTXPROF_GEN_' is in ctxprof.h's namespace"},
        {"Ctxprof", "prefix 'Ctxprof' is in ctxprof.h's namespace"},
        {"a b", "prefix 'a b' is not the start of a C identifier"},
        {"1x", "prefix '1x' is not the start of a C identifier"},
        {"", "empty prefix"},
    };
    const char *d = ctxprof_test_tmpdir(), *E = "examples/encoders/expr.callgraph";
    char cwd[512], longp[80], *hdr = NULL;
    ctxprof_graph g;
    ctxprof_enc_emit_desc desc;
    ctxprof_error err;
    size_t i, len;
    if (access("build/ctxprof-gen", X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) /* the input does not exist: never read */
        gen_tool_expect(2, bad[i][1], "-p '%s' -o %s/bad.h %s/missing.cg", bad[i][0], d, d);
    gen_tool_expect(2, "include guard 'a b' is not a C identifier", "--guard 'a b' %s/missing.cg",
                    d);
    gen_tool_expect(2, "include guard '' is not a C identifier", "--guard '' %s/missing.cg", d);
    CHECK_EQ(ctxprof_test_sh("test -e %s/bad.h", d), 1);
    /* the library refuses them too */
    REQUIRE(pcce_graph_file(&g, E) == 0);
    memset(&desc, 0, sizeof desc);
    desc.prefix = "ctxprof_enc_";
    CHECK_EQ(ctxprof_enc_emit(&g, &desc, &hdr, &len, &err), CTXPROF_ERR_INVAL);
    CHECK_CONTAINS(err.detail, "namespace");
    desc.prefix = "lib_";
    desc.guard = "x-y";
    CHECK_EQ(ctxprof_enc_emit(&g, &desc, &hdr, &len, &err), CTXPROF_ERR_INVAL);
    CHECK(hdr == NULL);
    ctxprof_graph_deinit(&g);
    /* a 70-letter prefix; two ctx.h, apart by their prefixes */
    memset(longp, 'p', 70);
    memcpy(longp + 70, "_", 2);
    gen_tool_expect(0, NULL, "-p %s -o %s/long.h %s", longp, d, E);
    REQUIRE(ctxprof_test_sh("mkdir -p %s/lib %s/app", d, d) == 0);
    gen_tool_expect(0, NULL, "-p lib_ -o %s/lib/ctx.h %s", d, E);
    gen_tool_expect(0, NULL, "-p app_ -o %s/app/ctx.h bench/enc_cost.callgraph", d);
    CHECK_EQ(ctxprof_test_sh("grep -q '^#ifndef LIB_CTX_H_INCLUDED' %s/lib/ctx.h && "
                             "grep -q '^#ifndef APP_CTX_H_INCLUDED' %s/app/ctx.h",
                             d, d),
             0);
    /* default prefix: the guard as before (the golden header's) */
    gen_tool_expect(0, NULL, "-o %s/lib/plain_ctx.h %s", d, E);
    CHECK_EQ(ctxprof_test_sh("grep -q '^#ifndef PLAIN_CTX_H_INCLUDED' %s/lib/plain_ctx.h", d), 0);
    {
        char path[600];
        snprintf(path, sizeof path, "%s/both.c", d);
        REQUIRE(gen_write(path,
                          "#include \"lib/ctx.h\"\n#include \"app/ctx.h\"\n#include \"long.h\"\n"
                          "int main(void)\n{\n"
                          "    return LIB_NODE(main) + APP_NODE(main) + "
                          "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP_"
                          "NODE(main);\n}\n") == 0);
    }
    CHECK_EQ(ctxprof_test_sh("cd %s && %s -std=c99 -Wall -Wextra -Werror -pedantic -I%s -c both.c "
                             "-o both.o 2> both.log",
                             d, CTXPROF_TEST_CC, cwd),
             0);
}

/* Two headers generated one by one for one program, an application's and
   a library's (-p app_, -p lib_): each has its own per-thread states, so
   the library's calls inside an application call neither change the
   application's encoding nor read it (both used &ctxprof_val_auto_tls and
   decoded each other's paths wrongly). Decoded in the library's work()
   with both headers' tables, in AUTO and PCCE; also with the application
   in C++ (the states have C linkage). */
static void gen_prefix_states(void)
{
    static const char *const show =
        "static void show(const char *who, ctxprof_enc *st, uint32_t base,\n"
        "                 const ctxprof_enc_tables *t, unsigned node)\n{\n"
        "    ctxprof_enc_view v;\n    uint32_t p[32];\n    size_t n;\n    char buf[200];\n"
        "    ctxprof_error e;\n    ctxprof_enc_query(st, base, &v);\n"
        "    if (ctxprof_enc_decode_view(t, &v, node, p, 32, &n, &e))\n"
        "        printf(\"%s: %s\\n\", who, e.detail);\n    else {\n"
        "        ctxprof_enc_format(t, node, p, n, buf, sizeof buf);\n"
        "        printf(\"%s: %s\\n\", who, buf);\n    }\n}\n";
    const char *d = ctxprof_test_tmpdir();
    const char *expect = "lib: libentry -> work\napp: main -> x -> libentry\n"
                         "lib: libentry -> other -> work\napp: main -> x -> libentry\n"
                         "lib: libentry -> work\napp: main -> libentry\n"
                         "lib: libentry -> other -> work\napp: main -> libentry\n";
    char path[600], cwd[512], cxx[64], *out;
    int k;
    PLAIN_BUILD_ONLY();
    if (access("build/ctxprof-gen", X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(cxx, sizeof cxx, "%s", strcmp(CTXPROF_TEST_CC, "clang") == 0 ? "clang++" : "g++");
    snprintf(path, sizeof path, "%s/app.cg", d);
    REQUIRE(gen_write(path, "ctxprof-callgraph 1\nroot main\ncall main x\ncall x libentry\n"
                            "call main libentry\n") == 0);
    snprintf(path, sizeof path, "%s/lib.cg", d);
    REQUIRE(gen_write(path, "ctxprof-callgraph 1\nroot libentry\ncall libentry work\n"
                            "call libentry other\ncall other work\n") == 0);
    snprintf(path, sizeof path, "%s/lib.c", d);
    {
        char text[4000];
        snprintf(text, sizeof text,
                 "#define LIB_IMPLEMENTATION\n#include \"lib_ctx.h\"\n#include <stdio.h>\n"
                 "void (*lib_hook)(void);\nint libentry(void);\n%s"
                 "static int work(void)\n{\n"
                 "    show(\"lib\", LIB_TLS, LIB_BASE, lib_tables(LIB_SCHEME), LIB_NODE(work));\n"
                 "    lib_hook();\n    return 1;\n}\n"
                 "static int other(void) { int r; LIB_CALL(LIB_EDGE(other, work, 0), r = work()); "
                 "return r; }\n"
                 "int libentry(void)\n{\n    int a, b;\n"
                 "    LIB_CALL(LIB_EDGE(libentry, work, 0), a = work());\n"
                 "    LIB_CALL(LIB_EDGE(libentry, other, 0), b = other());\n"
                 "    return a + b;\n}\n",
                 show);
        REQUIRE(gen_write(path, text) == 0);
        snprintf(path, sizeof path, "%s/app.c", d);
        snprintf(text, sizeof text,
                 "#define CTXPROF_IMPLEMENTATION\n#include \"app_ctx.h\"\n#include <stdio.h>\n"
                 "#ifdef __cplusplus\nextern \"C\" {\n#endif\n"
                 "extern void (*lib_hook)(void);\nint libentry(void);\n"
                 "#ifdef __cplusplus\n}\n#endif\n%s"
                 "static void hook(void)\n{\n"
                 "    show(\"app\", APP_TLS, APP_BASE, app_tables(APP_SCHEME), "
                 "APP_NODE(libentry));\n}\n"
                 "static int x(void) { int r; APP_CALL(APP_EDGE(x, libentry, 0), r = libentry()); "
                 "return r; }\n"
                 "int main(void)\n{\n    int a, b;\n    lib_hook = hook;\n"
                 "    APP_CALL(APP_EDGE(main, x, 0), a = x());\n"
                 "    APP_CALL(APP_EDGE(main, libentry, 0), b = libentry());\n"
                 "    return a + b == 4 ? 0 : 1;\n}\n",
                 show);
        REQUIRE(gen_write(path, text) == 0);
    }
    for (k = 0; k < 3; k++) {
        static const char *const schemes[3] = {"auto", "pcce", "auto"};
        int fails = ctxprof_test_failed;
        CHECK_EQ(ctxprof_test_sh("cd %s && %s/build/ctxprof-gen --scheme %s -p app_ -o app_ctx.h "
                                 "app.cg && %s/build/ctxprof-gen --scheme %s -p lib_ -o lib_ctx.h "
                                 "lib.cg",
                                 d, cwd, schemes[k], cwd, schemes[k]),
                 0);
        if (k < 2)
            CHECK_EQ(ctxprof_test_sh(
                         "cd %s && %s -std=c11 -O1 -Wall -Wextra -Werror -pedantic -Wshadow "
                         "-Wstrict-prototypes -Wmissing-prototypes -Wconversion -Wsign-conversion "
                         "-Wundef -D_GNU_SOURCE -I%s app.c lib.c -o two > two.log 2>&1 && "
                         "./two > two.out",
                         d, CTXPROF_TEST_CC, cwd),
                     0);
        else /* the application in C++, the library in C */
            CHECK_EQ(ctxprof_test_sh(
                         "cd %s && cp app.c app.cpp && %s -std=c++11 -O1 -Wall -Wextra -Werror "
                         "-pedantic -Wshadow -Wconversion -Wsign-conversion -Wundef "
                         "-Wold-style-cast -Wzero-as-null-pointer-constant -I%s -c app.cpp "
                         "-o app.o > two.log 2>&1 && %s -std=c99 -pedantic -Werror -D_GNU_SOURCE "
                         "-I%s -c lib.c -o lib.o >> two.log 2>&1 && %s app.o lib.o -o two "
                         "-lpthread >> two.log 2>&1 && ./two > two.out",
                         d, cxx, cwd, CTXPROF_TEST_CC, cwd, cxx),
                     0);
        if ((out = gen_read(d, "two.out", NULL)) != NULL) {
            CHECK_STR(out, expect);
            free(out);
        }
        if (ctxprof_test_failed != fails) {
            fprintf(stderr, "  with --scheme %s%s (see %s/two.log)\n", schemes[k],
                    k == 2 ? ", C++" : "", d);
            break;
        }
    }
}

/* callgraph: the root is the function that starts the most entered
   paths, with counts that add up past 2^64 saturating (two 2^63 wrapped
   to 0 and lost to a count of 1); a path map without paths, or without a
   call, is refused like pad refuses it (it wrote a graph with no edges and
   exit status 0). */
static void gen_cli_callgraph_root(void)
{
    const char *d = ctxprof_test_tmpdir();
    char *out;
    if (access("build/ctxprof-gen", X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    REQUIRE(
        ctxprof_test_sh("cd %s && printf 'ctxprof-paths 1\\npath 9223372036854775808 32 main a\\n"
                        "path 9223372036854775808 32 main b\\npath 1 32 other c\\n' > big.paths "
                        "&& printf 'ctxprof-paths 1\\n' > empty.paths && "
                        "printf 'ctxprof-paths 1\\npath 5 16 main\\n' > one.paths",
                        d) == 0);
    gen_tool_expect(0, NULL, "callgraph %s/big.paths", d);
    REQUIRE((out = gen_read(d, "tool.out", NULL)) != NULL);
    CHECK(strncmp(out, "ctxprof-callgraph 1\nroot main\n", 30) == 0);
    free(out);
    gen_tool_expect(1, "empty.paths: error: no paths (did the training run enter",
                    "callgraph -o %s/dyn.cg %s/empty.paths", d, d);
    gen_tool_expect(1, "error: no calls in the path maps (every path is one function)",
                    "callgraph -o %s/dyn.cg %s/one.paths", d, d);
    CHECK_EQ(ctxprof_test_sh("test -e %s/dyn.cg", d), 1);
}

/* gcc's .su files of C++ code: the name is the display name, with blanks
   ("cx.cpp:1:5:int foo(int)<TAB>16<TAB>static"; the line was refused as
   "not a frame size line"), and the path map names the function by its
   mangled symbol. They meet on the qualified name: a free function,
   static ones, members, constructors, destructors, operators, templates
   and the anonymous namespace; overloads share the largest frame. Then
   the .su of a real g++ build, when there is one. */
static void gen_pad_frames_cxx(void)
{
    const char *d = ctxprof_test_tmpdir();
    char *out;
    if (access("build/ctxprof-gen", X_OK) != 0)
        SKIP("build/ctxprof-gen not built (make builds it)");
    {
        char path[600];
        snprintf(path, sizeof path, "%s/cx.su", d);
        REQUIRE(gen_write(path,
                          "cx.cpp:1:5:int foo(int)\t16\tstatic\n"
                          "cx.cpp:2:5:int foo(double)\t48\tstatic\n"
                          "cx.cpp:3:39:static long int ns::C::bar(long int)\t24\tstatic\n"
                          "cx.cpp:4:12:int st(int)\t32\tdynamic,bounded\n"
                          "cx.cpp:5:3:A::A(int)\t40\tstatic\n"
                          "cx.cpp:6:3:A::~A()\t56\tstatic\n"
                          "cx.cpp:7:7:int A::operator()(int) const\t64\tstatic\n"
                          "cx.cpp:8:8:bool A::operator<(const A&) const\t72\tstatic\n"
                          "cx.cpp:9:21:T W<T>::get() [with T = long int]\t80\tstatic\n"
                          "cx.cpp:10:5:int {anonymous}::anon(int)\t88\tstatic\n"
                          "/usr/include/c++/12/bits/stl_vector.h:1276:7:void std::vector<_Tp, "
                          "_Alloc>::push_back(const value_type&) [with _Tp = int; _Alloc = "
                          "std::allocator<int>]\t96\tstatic\n"
                          "cx.cpp:11:5:int main()\t112\tstatic\n") == 0);
        snprintf(path, sizeof path, "%s/cx.paths", d);
        REQUIRE(gen_write(path, "ctxprof-paths 1\npath 1 128 main _Z3fooi\n"
                                "path 1 128 main _Z3food\npath 1 128 main _ZN2ns1C3barEl\n"
                                "path 1 128 main _ZL2sti\npath 1 128 main _ZN1AC2Ei\n"
                                "path 1 128 main _ZN1AD2Ev\npath 1 128 main _ZNK1AclEi\n"
                                "path 1 128 main _ZNK1AltERKS_\npath 1 128 main _ZN1WIlE3getEv\n"
                                "path 1 128 main _ZN12_GLOBAL__N_14anonEi\n"
                                "path 1 128 main _ZNSt6vectorIiSaIiEE9push_backERKi\n"
                                "path 1 128 main _Z6nosuchv\n") == 0);
    }
    gen_tool_expect(0, NULL, "pad --search none %s/cx.paths %s/cx.su", d, d);
    REQUIRE((out = gen_read(d, "tool.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "functions=13\nframes_known=12\n"); /* all but _Z6nosuchv */
    free(out);
    /* a blank-separated line of a C name still reads; a line without its
       ":LINE:COL:" is refused */
    REQUIRE(ctxprof_test_sh("printf 'c.c:1:5:main 32 static\\n' > %s/c.su && "
                            "printf 'cx.cpp:int foo(int)\\t16\\tstatic\\n' > %s/bad.su",
                            d, d) == 0);
    gen_tool_expect(0, NULL, "pad --search none %s/cx.paths %s/c.su", d, d);
    gen_tool_expect(1, "bad.su:1: error: not a frame size line", "pad %s/cx.paths %s/bad.su", d, d);
    /* a real g++ build's .su */
    if (ctxprof_test_sh("cd %s && printf 'int foo(int x) { return x + 1; }\\n"
                        "namespace ns { struct C { static long bar(long y); }; }\\n"
                        "long ns::C::bar(long y) { return y * 2; }\\n"
                        "int main() { return foo(1) + (int)ns::C::bar(2); }\\n' > real.cpp && "
                        "g++ -c -fstack-usage real.cpp -o real.o 2>/dev/null",
                        d) != 0)
        return;
    REQUIRE(ctxprof_test_sh("printf 'ctxprof-paths 1\\npath 1 64 main _Z3fooi\\n"
                            "path 1 64 main _ZN2ns1C3barEl\\n' > %s/real.paths",
                            d) == 0);
    gen_tool_expect(0, NULL, "pad --search none %s/real.paths %s/real.su", d, d);
    REQUIRE((out = gen_read(d, "tool.out", NULL)) != NULL);
    CHECK_CONTAINS(out, "functions=3\nframes_known=3\n");
    free(out);
}

static const ctxprof_test_case ctxprof_tests_gen[] = {
    {"gen_text_errors", gen_text_errors},
    {"gen_text_crlf", gen_text_crlf},
    {"gen_call_throw", gen_call_throw},
    {"gen_vcg_errors", gen_vcg_errors},
    {"gen_gcc_ci", gen_gcc_ci},
    {"gen_names_and_roots", gen_names_and_roots},
    {"gen_overflow_warning", gen_overflow_warning},
    {"gen_golden", gen_golden},
    {"gen_header_compiles", gen_header_compiles},
    {"gen_names_reserved", gen_names_reserved},
    {"gen_names_long_edges", gen_names_long_edges},
    {"gen_names_double_underscore", gen_names_double_underscore},
    {"gen_names_very_long", gen_names_very_long},
    {"gen_names_escaped", gen_names_escaped},
    {"gen_call_site_floor", gen_call_site_floor},
    {"gen_cli", gen_cli},
    {"gen_check_auto", gen_check_auto},
    {"gen_check_depth", gen_check_depth},
    {"gen_check_wide", gen_check_wide},
    {"gen_many_inputs", gen_many_inputs},
    {"gen_callgraph_from_paths", gen_callgraph_from_paths},
    {"gen_example_encoders", gen_example_encoders},
    {"gen_gcc_sized", gen_gcc_sized},
    {"gen_ci_cpp_inline", gen_ci_cpp_inline},
    {"gen_ci_lto", gen_ci_lto},
    {"gen_pad_frames", gen_pad_frames},
    {"gen_ci_duplicate_calls", gen_ci_duplicate_calls},
    {"gen_graph_names_vcg_empty", gen_graph_names_vcg_empty},
    {"gen_graph_names_vcg_hash", gen_graph_names_vcg_hash},
    {"gen_graph_names_vcg_blank", gen_graph_names_vcg_blank},
    {"gen_graph_names_vcg_control", gen_graph_names_vcg_control},
    {"gen_graph_names_vcg_empty_label", gen_graph_names_vcg_empty_label},
    {"gen_graph_names_api_empty", gen_graph_names_api_empty},
    {"gen_graph_names_api_hash", gen_graph_names_api_hash},
    {"gen_graph_names_api_blank", gen_graph_names_api_blank},
    {"gen_graph_names_api_control", gen_graph_names_api_control},
    {"gen_graph_names_api_empty_label", gen_graph_names_api_empty_label},
    {"gen_graph_names_text_escapes", gen_graph_names_text_escapes},
    {"gen_graph_roundtrip_seeds", gen_graph_roundtrip_seeds},
    {"gen_check_option_bounds", gen_check_option_bounds},
    {"gen_cli_options", gen_cli_options},
    {"gen_cli_stdout_full", gen_cli_stdout_full},
    {"gen_cli_output_is_input", gen_cli_output_is_input},
    {"gen_cli_signal_cleanup", gen_cli_signal_cleanup},
    {"gen_cli_prefix_guard", gen_cli_prefix_guard},
    {"gen_prefix_states", gen_prefix_states},
    {"gen_cli_callgraph_root", gen_cli_callgraph_root},
    {"gen_pad_frames_cxx", gen_pad_frames_cxx},
    {0, 0}};
