/* Valence, HCCE and AUTO: the paper's Figures 2 and 3, multi-word acyclic
   ids, HCCE's coded push edges, AUTO's per-target codes, and AUTO never
   longer than the best of the other three. Uses the pcce_* helpers. */

static uint32_t val_scc_level(const ctxprof_enc_tables *t, const ctxprof_graph *g,
                              const char *name)
{
    return t->lv_level[t->scc_of_node[pcce_node(g, name)]];
}

/* Figure 2: levels, level codes and edge codes the text gives. */
static void val_paper_figure2(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t, h;
    ctxprof_error err;
    ctxprof_enc st;
    uint32_t I, s, path[2];
    uint64_t saved[2];
    const ctxprof_enc_op *op;
    REQUIRE(pcce_graph_file(&g, "tests/data/fig1.txt") == 0);
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_VALENCE, &t, &err), CTXPROF_OK);
    I = pcce_node(&g, "I");
    CHECK_EQ(val_scc_level(&t, &g, "A"), 0);
    CHECK_EQ(val_scc_level(&t, &g, "J"), 0);
    CHECK_EQ(val_scc_level(&t, &g, "D"), 1);
    CHECK_EQ(val_scc_level(&t, &g, "F"), 2);
    CHECK_EQ(val_scc_level(&t, &g, "G"), 2);
    CHECK_EQ(val_scc_level(&t, &g, "I"), 4); /* "Valence uses four bits ... at node I" */
    s = t.scc_of_node[I];
    CHECK_EQ(t.lv_len[s], 1);
    REQUIRE_EQ(t.lv_first[s + 1] - t.lv_first[s], 2);
    /* the parents' levels 2 and 0 get level codes 0 and 1 */
    CHECK_EQ(t.grp_plevel[t.lv_first[s]], 2);
    CHECK_EQ(t.grp_plevel[t.lv_first[s] + 1], 0);
    /* FI = '00': no instrumentation; GI = '10': edge code 1 at bit 2;
       JI: level code 1 at bit 3, i.e. "[0,4) <- 8" */
    CHECK_EQ(t.ops[pcce_edge(&g, "F", "I", 0)].n_xor, 0);
    op = &t.ops[pcce_edge(&g, "G", "I", 0)];
    CHECK_EQ(op->n_xor, 1);
    CHECK_EQ(op->xor_word[0], 0);
    CHECK_EQ(op->xor_val[0], 4);
    op = &t.ops[pcce_edge(&g, "J", "I", 0)];
    CHECK_EQ(op->n_xor, 1);
    CHECK_EQ(op->xor_val[0], 8);
    op = &t.ops[pcce_edge(&g, "D", "F", 1)]; /* D^2 F: edge code 1 at D's level 1 */
    CHECK_EQ(op->xor_val[0], 2);
    CHECK_EQ(t.acyc_bits, 4);
    CHECK_EQ(t.rec_bits, 0);
    /* PCCE needs only three bits for I's eight contexts: HCCE's acyclic part */
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_HCCE, &h, &err), CTXPROF_OK);
    CHECK_EQ(h.acyc_bits, 3);
    ctxprof_enc_tables_free(&h, NULL);
    /* A -> J -> I sets bit 3 and decodes back; the return clears it */
    ctxprof_enc_init(&st, NULL);
    path[0] = pcce_edge(&g, "A", "J", 0);
    path[1] = pcce_edge(&g, "J", "I", 0);
    pcce_enter_path(&t, &st, path, 2, saved);
    CHECK_EQ(st.acyc[0], 8);
    CHECK(pcce_decodes_to(&t, &st, I, path, 2));
    pcce_leave_path(&t, &st, path, 2, saved);
    CHECK_EQ(st.acyc[0], 0);
    ctxprof_enc_deinit(&st);
    ctxprof_enc_tables_free(&t, NULL);
    ctxprof_graph_deinit(&g);
}

/* Figure 3: two complex SCCs (EFH, DGJ), seven cyclic edges, three-bit
   codes; at F after A J D^1 F H E F the stack's top edge (EF) and the
   acyclic part's last edge (D^1 F) both lead to F: unwinding the stack
   first is right (Alg. 4). Every scheme decodes it. */
static void val_paper_figure3(void)
{
    ctxprof_graph g;
    ctxprof_enc_stats s;
    ctxprof_error err;
    uint32_t path[6];
    int sch;
    REQUIRE(pcce_graph_file(&g, "tests/data/fig3.txt") == 0);
    REQUIRE_EQ(ctxprof_enc_stats_compute(&g, &s, &err), CTXPROF_OK);
    CHECK_EQ(s.complex_sccs, 2);
    CHECK_EQ(s.cyclic_edges, 7);
    CHECK_EQ(s.sccs, 6); /* A B C I, DGJ, EFH */
    CHECK_EQ(s.valence_rec_bits, 3);
    CHECK_EQ(g.nodes[pcce_node(&g, "E")].scc, g.nodes[pcce_node(&g, "H")].scc);
    CHECK_EQ(g.nodes[pcce_node(&g, "D")].scc, g.nodes[pcce_node(&g, "J")].scc);
    CHECK_NE(g.nodes[pcce_node(&g, "D")].scc, g.nodes[pcce_node(&g, "F")].scc);
    path[0] = pcce_edge(&g, "A", "J", 0);
    path[1] = pcce_edge(&g, "J", "D", 0);
    path[2] = pcce_edge(&g, "D", "F", 0);
    path[3] = pcce_edge(&g, "F", "H", 0);
    path[4] = pcce_edge(&g, "H", "E", 0);
    path[5] = pcce_edge(&g, "E", "F", 0);
    for (sch = 1; sch < CTXPROF_ENC_NSCHEMES; sch++) {
        ctxprof_enc_tables t;
        ctxprof_enc st;
        uint64_t saved[6];
        int i;
        REQUIRE_EQ(ctxprof_enc_build(&g, sch, &t, &err), CTXPROF_OK);
        ctxprof_enc_init(&st, NULL);
        for (i = 0; i < 6; i++) {
            saved[i] = ctxprof_enc_enter(&st, t.acyc_bits, &t.ops[path[i]]);
            CHECK(pcce_decodes_to(&t, &st, g.edges[path[i]].callee, path, (size_t)i + 1));
        }
        if (sch == CTXPROF_ENC_VALENCE) /* JD, FH, HE, EF are cyclic: 4 x 3 bits */
            CHECK_EQ(st.n, 12);
        for (i = 6; i-- > 0;)
            ctxprof_enc_leave(&st, t.acyc_bits, &t.ops[path[i]], saved[i]);
        CHECK_EQ(st.n, 0);
        CHECK_EQ(st.acyc[0], 0);
        ctxprof_enc_deinit(&st);
        ctxprof_enc_tables_free(&t, NULL);
    }
    ctxprof_graph_deinit(&g);
}

/* Wide layers push Valence's levels past 64, 128 ... bits: codes land in
   several words and straddle word boundaries; all still decode. */
static void val_multiword(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t;
    ctxprof_enc_check_result r;
    ctxprof_error err;
    char a[16], b[16];
    unsigned i, x, y, two_words = 0;
    size_t e;
    ctxprof_graph_init(&g, NULL);
    ctxprof_graph_add_node(&g, "main", 0);
    for (i = 0; i < 100; i++)
        for (x = 0; x < 3; x++)
            for (y = 0; y < 3; y++) {
                snprintf(a, sizeof a, i ? "n%u_%u" : "main", i - 1, x);
                snprintf(b, sizeof b, "n%u_%u", i, y);
                if (i || x == 0)
                    ctxprof_graph_add_edge(&g, a, b, NULL);
            }
    ctxprof_graph_add_edge(&g, "n99_2", "n95_0", NULL); /* and some recursion */
    REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_VALENCE, &t, &err), CTXPROF_OK);
    CHECK(t.acyc_bits > 128);
    CHECK(t.acyc_words >= 3);
    for (e = 0; e < g.n_edges; e++)
        if (t.ops[e].n_xor == 2 && t.ops[e].xor_word[0] != t.ops[e].xor_word[1])
            two_words++;
    CHECK(two_words > 0);
    ctxprof_enc_tables_free(&t, NULL);
    pcce_check_all(&g, 80, 160, 3, &r);
    ctxprof_graph_deinit(&g);
}

/* HCCE's ids cut at 64 bits: the push edges also push a stack code (so
   Alg. 4 never mistakes a saved id for a code) and decode. */
static void val_hcce_push_codes(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t;
    ctxprof_enc_check_result r;
    ctxprof_error err;
    char a[16], b[16];
    unsigned i, x, y, pushes = 0;
    size_t e;
    ctxprof_graph_init(&g, NULL);
    for (i = 0; i < 80; i++)
        for (x = 0; x < 2; x++)
            for (y = 0; y < 2; y++) {
                snprintf(a, sizeof a, i ? "%c%u" : "main", 'a' + x, i - 1);
                snprintf(b, sizeof b, "%c%u", 'a' + y, i);
                if (i || x == 0)
                    ctxprof_graph_add_edge(&g, a, b, NULL);
            }
    ctxprof_graph_add_edge(&g, "b79", "b79", NULL);
    ctxprof_graph_add_edge(&g, "b6", "a5", NULL);
    REQUIRE_EQ(ctxprof_graph_finish(&g), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_HCCE, &t, &err), CTXPROF_OK);
    CHECK(t.acyc_bits <= 64);
    for (e = 0; e < g.n_edges; e++)
        if (t.ops[e].id_push) {
            pushes++;
            CHECK_EQ(t.ops[e].push_bits, t.rec_bits);
            CHECK(t.edge_callee[t.rec_edge[t.ops[e].push_code]] == g.edges[e].callee);
        }
    CHECK(pushes > 0);
    ctxprof_enc_tables_free(&t, NULL);
    pcce_check_all(&g, 80, 120, 4, &r);
    ctxprof_graph_deinit(&g);
}

/* AUTO's codes are sized per target: an interpreter's eval has 40 cyclic
   callers (6 bits with the entry code), each op_i one (0 bits: the call
   eval -> op_i costs nothing); Valence spends ceil(log2 80) = 7 bits on
   every cyclic call. */
static void val_auto_codes(void)
{
    char text[8192];
    size_t used = 0, e;
    int i;
    ctxprof_graph g;
    ctxprof_enc_tables t, v;
    ctxprof_error err;
    used += (size_t)snprintf(text + used, sizeof text - used,
                             "ctxprof-callgraph 1\nroot main\ncall main eval\n");
    for (i = 0; i < 40; i++)
        used += (size_t)snprintf(text + used, sizeof text - used,
                                 "call eval op%d\ncall op%d eval\ncall op%d alloc\n", i, i, i);
    REQUIRE(pcce_graph_text(&g, text) == 0);
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_AUTO, &t, &err), CTXPROF_OK);
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_VALENCE, &v, &err), CTXPROF_OK);
    CHECK_EQ(v.rec_bits, 7);
    CHECK_EQ(t.node_rec_bits[pcce_node(&g, "eval")], 6); /* 40 callers + entry: 41 codes */
    CHECK(t.node_flags[pcce_node(&g, "eval")] & CTXPROF_ENC_NODE_ENTRY);
    CHECK_EQ(t.node_rec_bits[pcce_node(&g, "op7")], 0);
    CHECK(!(t.node_flags[pcce_node(&g, "op7")] & CTXPROF_ENC_NODE_ENTRY));
    for (e = 0; e < g.n_edges; e++) {
        const ctxprof_enc_op *op = &t.ops[e];
        const char *callee = g.nodes[g.edges[e].callee].name;
        if (callee[0] == 'o') /* eval -> op_i: nothing at all */
            CHECK(op->push_bits == 0 && op->add == 0 && op->n_xor == 0 && !op->id_push);
        if (strcmp(callee, "eval") == 0 && g.edges[e].caller != g.root)
            CHECK_EQ(op->push_bits, 6);
        if (strcmp(callee, "eval") == 0 && g.edges[e].caller == g.root) /* the entry code */
            CHECK(op->push_bits == 6 && op->push_code == 0);
    }
    ctxprof_enc_tables_free(&t, NULL);
    ctxprof_enc_tables_free(&v, NULL);
    ctxprof_graph_deinit(&g);
}

/* The graphs that showed AUTO longer than Valence (the audit's
   counterexamples, avg words): "lay" L layers of two functions, each
   calling both of the next layer (200 layers: PCCE 43.8, Valence 4.0,
   AUTO 43.8: a cut that kept the id near 2^64 overflowed again at every
   layer); "site" one function per layer calling the next from 8 sites
   over 100 layers (AUTO 54.7 vs Valence 5.0), "siteself" the same with
   self recursion (AUTO 55.0 vs 6.3); "tail": 24 layers of 256 sites
   (2^192 contexts, Valence's id exactly three words) above a chain of 200
   functions, where the cut numbering needs four words on the whole chain
   and AUTO takes Valence's levels. "chself" a chain of self-recursive
   functions, "chback" a chain calling back, "prec" a precedence chain
   (each level calls the next from two sites, the last the first). */
static void val_gen_graph(const char *name, ctxprof__sbuf *b)
{
    int i, j, n = atoi(name + strcspn(name, "0123456789"));
    ctxprof__sbuf_printf(b, "ctxprof-callgraph 1\nroot main\n");
    if (strncmp(name, "lay", 3) == 0) {
        ctxprof__sbuf_printf(b, "call main a0\ncall main b0\n");
        for (i = 1; i < n; i++)
            ctxprof__sbuf_printf(b, "call a%d a%d\ncall a%d b%d\ncall b%d a%d\ncall b%d b%d\n",
                                 i - 1, i, i - 1, i, i - 1, i, i - 1, i);
    } else if (strncmp(name, "site", 4) == 0) {
        ctxprof__sbuf_printf(b, "call main f0\n");
        for (i = 1; i < n; i++)
            for (j = 0; j < 8; j++)
                ctxprof__sbuf_printf(b, "call f%d f%d site=%d\n", i - 1, i, j);
        for (i = 0; strstr(name, "self") && i < n; i++)
            ctxprof__sbuf_printf(b, "call f%d f%d site=self\n", i, i);
    } else if (strcmp(name, "tail") == 0) {
        ctxprof__sbuf_printf(b, "call main f0\n");
        for (i = 1; i <= 24; i++)
            for (j = 0; j < 256; j++)
                ctxprof__sbuf_printf(b, "call f%d f%d site=%d\n", i - 1, i, j);
        for (i = 24; i < 224; i++)
            ctxprof__sbuf_printf(b, "call f%d f%d\n", i, i + 1);
    } else if (strncmp(name, "ch", 2) == 0 || strncmp(name, "prec", 4) == 0) {
        ctxprof__sbuf_printf(b, "call main f0\n");
        for (i = 0; i < n; i++) {
            if (name[2] == 's')
                ctxprof__sbuf_printf(b, "call f%d f%d\n", i, i);
            if (i + 1 < n && name[0] == 'p')
                ctxprof__sbuf_printf(b, "call f%d f%d site=l\ncall f%d f%d site=r\n", i, i + 1, i,
                                     i + 1);
            else if (i + 1 < n)
                ctxprof__sbuf_printf(b, "call f%d f%d\n", i, i + 1);
            if (i + 1 < n && name[2] == 'b')
                ctxprof__sbuf_printf(b, "call f%d f%d\n", i + 1, i);
        }
        if (name[0] == 'p')
            ctxprof__sbuf_printf(b, "call f%d f0\ncall f%d num\n", n - 1, n - 1);
    }
}

/* The goal: AUTO's encoding is never longer than the best of
   PCCE, Valence and HCCE (average and longest, in words and in bits, over
   random walks) on programs of every shape: recursive descent, an
   interpreter, a long cycle entered anywhere, self recursion, wide DAGs,
   the paper's Figure 3, random graphs with many SCCs, deep layered DAGs
   whose ids overflow 64 bits (with and without recursion), chains. */
static void val_auto_never_longer(void)
{
    static const char *const shapes[] = {
        "rdp",  "interp",  "ring",    "ring1",   "self",   "fig3",   "diamond", "r1",
        "r2",   "r3",      "r4",      "r5",      "lay200", "lay120", "site100", "siteself100",
        "tail", "chself3", "chself8", "chback8", "prec4",  "prec16"};
    size_t k;
    for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        ctxprof_graph g;
        ctxprof_enc_check_result r;
        ctxprof__sbuf b; /* the graph's text */
        int i, s, deep = 0, overflow;
        double best = 1e9, best_bits = 1e18, a, ab;
        uint64_t best_max = UINT64_MAX, best_max_bits = UINT64_MAX;
        const char *name = shapes[k];
        memset(&b, 0, sizeof b);
        ctxprof__sbuf_printf(&b, "ctxprof-callgraph 1\nroot main\n");
        if (strcmp(name, "rdp") == 0)
            ctxprof__sbuf_printf(&b, "call main parse\ncall parse expr\ncall expr term\n"
                                     "call expr expr site=a\ncall term factor\n"
                                     "call term term site=m\ncall factor number\n"
                                     "call factor expr site=p\ncall factor call\n"
                                     "call call expr site=arg\ncall main print\n");
        else if (strcmp(name, "interp") == 0) {
            ctxprof__sbuf_printf(&b, "call main eval\n");
            for (i = 0; i < 60; i++)
                ctxprof__sbuf_printf(&b, "call eval op%d\ncall op%d eval\ncall op%d gc\n", i, i, i);
        } else if (strcmp(name, "ring") == 0 || strcmp(name, "ring1") == 0) {
            for (i = 0; i < 60; i++)
                ctxprof__sbuf_printf(&b, "call r%d r%d\n", i, (i + 1) % 60);
            for (i = 0; i < (name[4] ? 1 : 60); i++)
                ctxprof__sbuf_printf(&b, "call main r%d\n", i);
        } else if (strcmp(name, "self") == 0) {
            ctxprof__sbuf_printf(&b, "call main fib\ncall fib fib site=a\ncall fib fib site=b\n");
        } else if (strcmp(name, "diamond") == 0) { /* 2^40 contexts, and a way back */
            ctxprof__sbuf_printf(&b, "call main a0\ncall main b0\ncall b39 a10\n");
            for (i = 1; i < 40; i++)
                ctxprof__sbuf_printf(&b, "call a%d a%d\ncall a%d b%d\ncall b%d a%d\ncall b%d b%d\n",
                                     i - 1, i, i - 1, i, i - 1, i, i - 1, i);
        } else if (!(name[0] == 'r' && name[1] >= '1' && name[1] <= '9') &&
                   strcmp(name, "fig3") != 0) {
            b.len = 0;
            val_gen_graph(name, &b);
            deep = 1;
        }
        if (strcmp(name, "fig3") == 0) {
            REQUIRE(pcce_graph_file(&g, "tests/data/fig3.txt") == 0);
        } else if (name[0] == 'r' && name[1] >= '1' && name[1] <= '9') {
            int n = 20 + 60 * (name[1] - '0');
            pcce_random_graph(&g, (unsigned)n, (unsigned)(3 * n), 4 + 3 * (unsigned)(name[1] - '0'),
                              (uint64_t)(name[1] - '0') * 7);
        } else {
            REQUIRE(!b.failed);
            REQUIRE(pcce_graph_text(&g, b.p) == 0);
        }
        free(b.p);
        {
            ctxprof_enc_stats st;
            ctxprof_error err;
            REQUIRE_EQ(ctxprof_enc_stats_compute(&g, &st, &err), CTXPROF_OK);
            overflow = st.hcce_bits > 64;
        }
        /* the deep shapes: walks as deep as their longest paths, and deeper */
        pcce_check_all(&g, deep ? 60 : 150, deep ? 300 : 80, k, &r);
        for (s = 1; s < CTXPROF_ENC_AUTO; s++) {
            double x = (double)r.words_sum[s] / (double)r.steps;
            double xb = (double)r.bits_sum[s] / (double)r.steps;
            if (x < best)
                best = x;
            if (xb < best_bits)
                best_bits = xb;
            if (r.max_words[s] < best_max)
                best_max = r.max_words[s];
            if (r.max_bits[s] < best_max_bits)
                best_max_bits = r.max_bits[s];
        }
        a = (double)r.words_sum[CTXPROF_ENC_AUTO] / (double)r.steps;
        ab = (double)r.bits_sum[CTXPROF_ENC_AUTO] / (double)r.steps;
        if (a > best + 1e-9 || r.max_words[CTXPROF_ENC_AUTO] > best_max ||
            (!overflow && (ab > best_bits + 1e-9 || r.max_bits[CTXPROF_ENC_AUTO] > best_max_bits)))
            fprintf(stderr,
                    "  %s: auto %.3f words (max %llu), %.1f bits (max %llu); best of the others "
                    "%.3f (max %llu), %.1f bits (max %llu)\n",
                    name, a, (unsigned long long)r.max_words[CTXPROF_ENC_AUTO], ab,
                    (unsigned long long)r.max_bits[CTXPROF_ENC_AUTO], best,
                    (unsigned long long)best_max, best_bits, (unsigned long long)best_max_bits);
        CHECK(a <= best + 1e-9);
        CHECK_LE(r.max_words[CTXPROF_ENC_AUTO], best_max);
        /* in bits too, where ids fit 64 bits: a cut numbering spends a few
           bits more than Valence's exact fields (the same words) */
        if (!overflow) {
            CHECK(ab <= best_bits + 1e-9);
            CHECK_LE(r.max_bits[CTXPROF_ENC_AUTO], best_max_bits);
        }
        ctxprof_graph_deinit(&g);
    }
}

/* ctxprof_enc_xor sets and resets a field of one word without touching
   the others (the call-site macro's whole-word XOR). */
static void val_xor_words(void)
{
    ctxprof_enc st;
    ctxprof_enc_init(&st, NULL);
    st.acyc[1] = 0xF0F0F0F0F0F0F0F0u;
    ctxprof_enc_xor(&st, 1, 0x0000000000000F00u);
    CHECK_EQ(st.acyc[1], 0xF0F0F0F0F0F0FFF0u);
    CHECK_EQ(st.acyc[0], 0);
    CHECK_EQ(st.acyc[2], 0);
    ctxprof_enc_xor(&st, 1, 0x0000000000000F00u);
    CHECK_EQ(st.acyc[1], 0xF0F0F0F0F0F0F0F0u);
    {
        int r = 0;
        CTXPROF_VAL_CALL_SET2(&st, 0, 0x8000000000000000u, 3, 1u,
                              r = (st.acyc[0] >> 63) == 1 && st.acyc[3] == 1);
        CHECK(r);
        CHECK_EQ(st.acyc[0], 0);
        CHECK_EQ(st.acyc[3], 0);
        CTXPROF_PCCE_CALL_ADD(&st, 7, r = st.acyc[0] == 7);
        CHECK(r);
        CTXPROF_VAL_CALL_PUSH(&st, 64, 5, 21, r = st.n == 5 && st.cur == 21);
        CHECK(r);
        CHECK_EQ(st.n, 0);
        CTXPROF_PCCE_CALL_PUSH(&st, 64, 64, 3, r = st.acyc[0] == 3 && st.n == 64);
        CHECK(r);
        CHECK_EQ(st.acyc[0], 0);
    }
    ctxprof_enc_deinit(&st);
}

/* A graph whose Valence id needs more words than a run-time state holds
   (a 1,000-layer ladder: 999 bits, 16 words; a state holds
   CTXPROF_ENC_ACYC_WORDS, 8 by default): ctxprof_enc_build refuses it,
   says which -DCTXPROF_ENC_ACYC_WORDS to build with, as a generated
   header's #error does, and leaves nothing allocated (the sanitizers' leak
   check). It used to return the tables, whose XORs ran past the state and
   over its own fields. The other schemes fit and build; the statistics and
   the self-check, which keep wide ids on the heap, still take the graph. */
static void val_build_too_wide(void)
{
    ctxprof_graph g;
    ctxprof_enc_tables t;
    ctxprof_enc_stats s;
    ctxprof_enc_check_result r;
    ctxprof_error err;
    ctxprof__sbuf b;
    int sc;
    memset(&b, 0, sizeof b);
    val_gen_graph("lay1000", &b);
    REQUIRE(!b.failed);
    REQUIRE(pcce_graph_text(&g, b.p) == 0);
    free(b.p);
    REQUIRE_EQ(ctxprof_enc_stats_compute(&g, &s, &err), CTXPROF_OK);
    CHECK_EQ(s.valence_bits, 999);
    memset(&t, 0xA5, sizeof t);
#if CTXPROF_ENC_ACYC_WORDS < 16
    CHECK_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_VALENCE, &t, &err), CTXPROF_ERR_RANGE);
    CHECK_EQ(err.status, CTXPROF_ERR_RANGE);
    CHECK_CONTAINS(err.detail, "the valence encoding of this call graph needs "
                               "-DCTXPROF_ENC_ACYC_WORDS=16 (acyclic part: 999 bits");
    CHECK(t.ops == NULL && t.node_names == NULL && t.acyc_words == 0); /* nothing to free */
#else
    REQUIRE_EQ(ctxprof_enc_build(&g, CTXPROF_ENC_VALENCE, &t, &err), CTXPROF_OK);
    CHECK_EQ(t.acyc_words, 16);
#endif
    ctxprof_enc_tables_free(&t, NULL);
    for (sc = CTXPROF_ENC_PCCE; sc <= CTXPROF_ENC_AUTO; sc++) {
        if (sc == CTXPROF_ENC_VALENCE)
            continue;
        REQUIRE_EQ(ctxprof_enc_build(&g, sc, &t, &err), CTXPROF_OK);
        CHECK(t.acyc_words <= CTXPROF_ENC_ACYC_WORDS);
        ctxprof_enc_tables_free(&t, NULL);
    }
    pcce_check_all(&g, 4, 200, 4, &r);
    CHECK_EQ(r.max_depth, 200);
    ctxprof_graph_deinit(&g);
}

/* Tables wider than the state (hand-made, or built for states of more
   words) cannot corrupt it: ctxprof_enc_enter and _leave skip an XOR past
   the state's words (it used to land on the state's own buf and capw),
   and ctxprof_enc_query of such a base gives a truncated, empty view (it
   used to read the state's fields as acyclic words), whose decode says
   which -DCTXPROF_ENC_ACYC_WORDS it needs. */
static void val_state_past_words(void)
{
    struct {
        ctxprof_enc st;
        uint64_t after[4];
    } box;
    ctxprof_enc_op op;
    ctxprof_enc_tables t;
    ctxprof_enc_view v;
    ctxprof_error err;
    uint32_t base = 64 * CTXPROF_ENC_ACYC_WORDS + 7, out[4];
    size_t n = 5, i;
    uint64_t saved;
    char want[64];
    ctxprof_enc_desc d;
    memset(&box, 0, sizeof box);
    memset(&d, 0, sizeof d);
    d.max_words = 99;
    ctxprof_enc_init(&box.st, &d);
    memset(&op, 0, sizeof op);
    op.n_xor = 3;
    op.xor_word[0] = 0;
    op.xor_val[0] = 1;
    op.xor_word[1] = CTXPROF_ENC_ACYC_WORDS + 1; /* past acyc[]: buf */
    op.xor_val[1] = 0x1000;
    op.xor_word[2] = CTXPROF_ENC_ACYC_WORDS + 2; /* capw */
    op.xor_val[2] = 0x2000;
    saved = ctxprof_enc_enter(&box.st, base, &op);
    CHECK_EQ(box.st.acyc[0], 1);
    CHECK(box.st.buf == NULL);
    CHECK_EQ(box.st.capw, 0);
    CHECK_EQ(box.st.depth, 0);
    CHECK_EQ(box.st.max_words, 99);
    ctxprof_enc_query(&box.st, base, &v);
    CHECK_EQ(v.n_words, 0);
    CHECK_EQ(v.n_bits, base);
    REQUIRE(v.truncated);
    memset(&t, 0, sizeof t);
    t.scheme = CTXPROF_ENC_VALENCE;
    t.n_nodes = 1;
    t.acyc_bits = base;
    t.acyc_words = (base + 63) / 64;
    CHECK_EQ(ctxprof_enc_decode_view(&t, &v, 0, out, 4, &n, &err), CTXPROF_ERR_RANGE);
    CHECK_EQ(n, 0);
    snprintf(want, sizeof want, "build with -DCTXPROF_ENC_ACYC_WORDS=%u",
             (unsigned)CTXPROF_ENC_ACYC_WORDS + 1);
    CHECK_CONTAINS(err.detail, want);
    /* the hash of such a view is the same empty encoding every time */
    CHECK_EQ(ctxprof_enc_hash(&box.st, base, 1), ctxprof_enc_hash(&box.st, base, 1));
    ctxprof_enc_leave(&box.st, base, &op, saved);
    CHECK_EQ(box.st.acyc[0], 0);
    CHECK(box.st.buf == NULL);
    CHECK_EQ(box.st.capw, 0);
    for (i = 0; i < 4; i++)
        CHECK_EQ(box.after[i], 0);
    ctxprof_enc_deinit(&box.st);
}

/* The ladder that ctxprof_enc_build refuses in a default build (see
   val_build_too_wide) builds, runs and decodes in a program built with
   -DCTXPROF_ENC_ACYC_WORDS=16, the number the refusal names: a path down
   all 1,000 layers, zigzagging between the a and b sides, decodes to
   itself. */
static void val_build_more_words(void)
{
    static const char drv[] =
        "#define CTXPROF_IMPLEMENTATION\n"
        "#include \"ctxprof.h\"\n"
        "#include <stdio.h>\n"
        "#include <string.h>\n"
        "int main(void)\n"
        "{\n"
        "    static uint32_t path[1000], out[1001];\n"
        "    static uint64_t saved[1000];\n"
        "    ctxprof_graph g;\n"
        "    ctxprof_enc_tables t;\n"
        "    ctxprof_enc st;\n"
        "    ctxprof_enc_view v;\n"
        "    ctxprof_error err;\n"
        "    char a[16], b[16];\n"
        "    size_t n = 0, got = 0, i;\n"
        "    uint32_t cur;\n"
        "    int rc, ok, x, y;\n"
        "    ctxprof_graph_init(&g, NULL);\n"
        "    ctxprof_graph_add_edge(&g, \"main\", \"a0\", NULL);\n"
        "    ctxprof_graph_add_edge(&g, \"main\", \"b0\", NULL);\n"
        "    for (i = 1; i < 1000; i++)\n"
        "        for (x = 0; x < 2; x++)\n"
        "            for (y = 0; y < 2; y++) {\n"
        "                snprintf(a, sizeof a, \"%c%u\", 'a' + x, (unsigned)i - 1);\n"
        "                snprintf(b, sizeof b, \"%c%u\", 'a' + y, (unsigned)i);\n"
        "                ctxprof_graph_add_edge(&g, a, b, NULL);\n"
        "            }\n"
        "    if (ctxprof_graph_finish(&g) != CTXPROF_OK)\n"
        "        return 1;\n"
        "    rc = ctxprof_enc_build(&g, CTXPROF_ENC_VALENCE, &t, &err);\n"
        "    if (rc != CTXPROF_OK) {\n"
        "        printf(\"refused: %s\\n\", err.detail);\n"
        "        ctxprof_graph_deinit(&g);\n"
        "        return rc == CTXPROF_ERR_RANGE ? 3 : 1;\n"
        "    }\n"
        "    printf(\"acyc_bits=%u acyc_words=%u\\n\", t.acyc_bits, t.acyc_words);\n"
        "    ctxprof_enc_init(&st, NULL);\n"
        "    for (cur = g.root; g.out_first[cur] < g.out_first[cur + 1]; n++) {\n"
        "        uint32_t k = g.out_first[cur + 1] - g.out_first[cur];\n"
        "        uint32_t e = g.out_edge[g.out_first[cur] + (uint32_t)n % k];\n"
        "        path[n] = e;\n"
        "        saved[n] = ctxprof_enc_enter(&st, t.acyc_bits, &t.ops[e]);\n"
        "        cur = g.edges[e].callee;\n"
        "    }\n"
        "    ctxprof_enc_query(&st, t.acyc_bits, &v);\n"
        "    ok = ctxprof_enc_decode_view(&t, &v, cur, out, 1001, &got, &err) == CTXPROF_OK &&\n"
        "         got == n && n == 1000 && memcmp(out, path, n * sizeof *path) == 0;\n"
        "    printf(\"decoded %lu of %lu edges: %s\\n\", (unsigned long)got, (unsigned long)n,\n"
        "           ok ? \"the path walked\" : err.detail);\n"
        "    for (i = n; i-- > 0;)\n"
        "        ctxprof_enc_leave(&st, t.acyc_bits, &t.ops[path[i]], saved[i]);\n"
        "    for (i = 0; i < CTXPROF_ENC_ACYC_WORDS; i++)\n"
        "        ok = ok && st.acyc[i] == 0;\n"
        "    ctxprof_enc_deinit(&st);\n"
        "    ctxprof_enc_tables_free(&t, NULL);\n"
        "    ctxprof_graph_deinit(&g);\n"
        "    return ok ? 0 : 2;\n"
        "}\n";
    const char *d = ctxprof_test_tmpdir();
    char path[600], cwd[512], *log = NULL;
    size_t len;
    ctxprof_error err;
    FILE *f;
    PLAIN_BUILD_ONLY();
    REQUIRE(getcwd(cwd, sizeof cwd) != NULL);
    snprintf(path, sizeof path, "%s/wide.c", d);
    REQUIRE((f = fopen(path, "w")) != NULL);
    fputs(drv, f);
    REQUIRE(fclose(f) == 0);
    /* the default build refuses, naming the words; with them it works */
    CHECK_EQ(ctxprof_test_sh("cd %s && %s -std=c99 -O0 -Wall -Wextra -Werror -D_GNU_SOURCE -I%s "
                             "wide.c -o wide8 > wide8.log 2>&1 && ./wide8 >> wide8.log 2>&1",
                             d, CTXPROF_TEST_CC, cwd),
             3);
    CHECK_EQ(ctxprof_test_sh("cd %s && %s -std=c99 -O0 -Wall -Wextra -Werror -D_GNU_SOURCE "
                             "-DCTXPROF_ENC_ACYC_WORDS=16 -I%s wide.c -o wide16 > wide16.log "
                             "2>&1 && ./wide16 >> wide16.log 2>&1",
                             d, CTXPROF_TEST_CC, cwd),
             0);
    snprintf(path, sizeof path, "%s/wide8.log", d);
    if (ctxprof__read_file(path, &log, &len, NULL, &err) == CTXPROF_OK) {
        CHECK_CONTAINS(log, "refused: the valence encoding of this call graph needs "
                            "-DCTXPROF_ENC_ACYC_WORDS=16");
        ctxprof_graph_free_buffer(log, NULL);
    }
    snprintf(path, sizeof path, "%s/wide16.log", d);
    if (ctxprof__read_file(path, &log, &len, NULL, &err) == CTXPROF_OK) {
        CHECK_CONTAINS(log, "acyc_bits=999 acyc_words=16\ndecoded 1000 of 1000 edges: the path "
                            "walked\n");
        ctxprof_graph_free_buffer(log, NULL);
    }
}

static const ctxprof_test_case ctxprof_tests_valence[] = {
    {"val_paper_figure2", val_paper_figure2},
    {"val_paper_figure3", val_paper_figure3},
    {"val_multiword", val_multiword},
    {"val_hcce_push_codes", val_hcce_push_codes},
    {"val_auto_codes", val_auto_codes},
    {"val_auto_never_longer", val_auto_never_longer},
    {"val_xor_words", val_xor_words},
    {"val_build_too_wide", val_build_too_wide},
    {"val_state_past_words", val_state_past_words},
    {"val_build_more_words", val_build_more_words},
    {0, 0}};
