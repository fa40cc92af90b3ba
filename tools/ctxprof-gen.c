/* ctxprof-gen: call graph -> C header of precise calling-context encodings.

   Reads call graphs (the ctxprof-callgraph 1 text format and gcc's
   -fcallgraph-info=su .ci files, several merged into one program), and

     ctxprof-gen [options] GRAPH...         writes the header (call macros, tables)
     ctxprof-gen stats GRAPH...             prints the graph's statistics
     ctxprof-gen check GRAPH... --walks N   verifies the encodings by random walks
     ctxprof-gen callgraph PATHMAP...       a training run's dynamic call graph

   All the work is done by the library (ctxprof.h, graph and encoding
   sections); this file parses options and prints. Subcommands live in one
   table (ctxprof_gen_cmds): add a row and a function to add one.

   Exit status: 0 ok, 1 bad input (or a check that failed), 2 usage or I/O. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GEN_EXIT_INPUT 1
#define GEN_EXIT_USAGE 2

static const char *gen_prog = "ctxprof-gen";

static void gen_log(void *user, int level, const char *msg)
{
    (void)user;
    fprintf(stderr, "%s: %s: %s\n", gen_prog,
            level == CTXPROF_LOG_ERROR  ? "error"
            : level == CTXPROF_LOG_WARN ? "warning"
                                        : "note",
            msg);
}

/* Prints a library error as "path:line[:col]: error: text" when it starts
   with a location, else "ctxprof-gen: error: text". */
static void gen_error(const char *detail)
{
    const char *p = strchr(detail, ':');
    if (p && p[1] >= '0' && p[1] <= '9') {
        const char *q = p + 1;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q == ':' && q[1] >= '0' && q[1] <= '9') {
            q++;
            while (*q >= '0' && *q <= '9')
                q++;
        }
        if (*q == ':' && q[1] == ' ') {
            fprintf(stderr, "%.*s: error: %s\n", (int)(q - detail), detail, q + 2);
            return;
        }
    }
    fprintf(stderr, "%s: error: %s\n", gen_prog, detail);
}

static int gen_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", gen_prog);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(see %s --help)\n", gen_prog);
    return GEN_EXIT_USAGE;
}

/* Options shared by the subcommands. */
typedef struct gen_opts {
    const char *cmd; /* the subcommand ("" writes the header), for its --help */
    const char *out, *prefix, *root, *guard;
    const char *input_kind; /* what an input is, for "no ... given" (NULL: a call graph) */
    const char **inputs; /* the inputs, gathered at the front of argv (no limit) */
    size_t n_inputs;
    unsigned bits;
    int scheme;    /* default scheme of the header */
    uint32_t mask; /* extra schemes to emit */
    uint64_t walks, seed;
    uint32_t depth, steps;
    ctxprof_icpp_pad_desc pad; /* pad: the search (seed: in seed) */
} gen_opts;

static void gen_show_help(const char *cmd);

static int gen_u64(const char *s, uint64_t *v)
{
    return ctxprof__parse_u64(s, v) == 0;
}

/* A positive count, as digits or in the form the help gives (1.2e9). */
static int parse_count(const char *s, uint64_t *out)
{
    char *end;
    double v;
    if (ctxprof__parse_u64(s, out) == 0)
        return *out ? 0 : -1;
    v = strtod(s, &end);
    if (end == s || *end || !(v >= 1 && v < 18446744073709551616.0) || (double)(uint64_t)v != v)
        return -1;
    *out = (uint64_t)v;
    return 0;
}

/* The position (1, 2, ...) of name[0..n) among the blank-separated words
   of list, compared whole, or 0. */
static int gen_word_index(const char *name, size_t n, const char *list)
{
    int pos = 1;
    while (*list) {
        size_t k = strcspn(list, " ");
        if (k == n && memcmp(list, name, n) == 0)
            return pos;
        list += k;
        list += strspn(list, " ");
        pos++;
    }
    return 0;
}

/* Parses argv (after the subcommand). `allowed` lists the options of the
   command, e.g. "o p bits scheme": one letter after "-" (-o FILE), longer
   names after "--" (--bits 32, --bits=32), each at most once. Returns 0,
   -1 when --help (or -h) printed the command's help, or the exit status
   after a usage error. */
static int gen_parse(int argc, char **argv, const char *allowed, gen_opts *o)
{
    int i;
    uint32_t seen = 0;
    for (i = 0; i < argc; i++) /* first: "stats --bogus --help" helps */
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            gen_show_help(o->cmd);
            return -1;
        }
    o->inputs = (const char **)argv; /* slots before argv[i] are read already */
    for (i = 0; i < argc; i++) {
        const char *a = argv[i], *name = NULL, *val = NULL;
        char key[32];
        size_t k;
        int idx;
        uint64_t v;
        if (a[0] != '-' || a[1] == '\0') { /* an input ("-" = stdin) */
            o->inputs[o->n_inputs++] = a;
            continue;
        }
        /* the name exactly as the command lists it: "--depth steps" or
           "--o" is no option of a command that has --depth or -o */
        name = a[1] == '-' ? a + 2 : a + 1;
        k = a[1] == '-' ? strcspn(name, "=") : strlen(name);
        if ((a[1] == '-') != (k > 1) || k >= sizeof key ||
            (idx = gen_word_index(name, k, allowed)) == 0)
            return gen_usage_error("unknown option %s", a);
        memcpy(key, name, k);
        key[k] = '\0';
        if (seen >> idx & 1) {
            char opt[40];
            snprintf(opt, sizeof opt, "%s%s", k > 1 ? "--" : "-", key);
            return gen_usage_error("option %s given twice", opt);
        }
        seen |= 1u << idx;
        if (strcmp(key, "all-schemes") == 0 || strcmp(key, "wrap") == 0) { /* flags */
            if (name[k] == '=')
                return gen_usage_error("option %s takes no value", a);
        } else {
            if (name[k] == '=')
                val = name + k + 1;
            else if (i + 1 < argc)
                val = argv[++i];
            else
                return gen_usage_error("option %s needs a value", a);
        }
        if (strcmp(key, "o") == 0)
            o->out = val;
        else if (strcmp(key, "p") == 0)
            o->prefix = val;
        else if (strcmp(key, "root") == 0)
            o->root = val;
        else if (strcmp(key, "guard") == 0)
            o->guard = val;
        else if (strcmp(key, "all-schemes") == 0)
            o->mask = 0x1Eu;
        else if (strcmp(key, "bits") == 0) {
            if (!gen_u64(val, &v) || (v != 32 && v != 64))
                return gen_usage_error("--bits takes 32 or 64, not '%s'", val);
            o->bits = (unsigned)v;
        } else if (strcmp(key, "scheme") == 0) {
            if (!(o->scheme = ctxprof_enc_scheme_parse(val)))
                return gen_usage_error("unknown scheme '%s' (pcce, valence, hcce or auto)", val);
        } else if (strcmp(key, "walks") == 0) {
            if (!gen_u64(val, &o->walks) || !o->walks)
                return gen_usage_error("--walks takes a positive number, not '%s'", val);
        } else if (strcmp(key, "seed") == 0) {
            if (!gen_u64(val, &o->seed))
                return gen_usage_error("--seed takes a number, not '%s'", val);
        } else if (strcmp(key, "depth") == 0) {
            if (!gen_u64(val, &v) || v == 0 || v > 1000000)
                return gen_usage_error("--depth takes 1 .. 1000000, not '%s'", val);
            o->depth = (uint32_t)v;
        } else if (strcmp(key, "steps") == 0) {
            if (!gen_u64(val, &v) || v == 0 || v > 100000000)
                return gen_usage_error("--steps takes 1 .. 100000000, not '%s'", val);
            o->steps = (uint32_t)v;
        } else if (strcmp(key, "search") == 0) {
            o->pad.search = strcmp(val, "ours") == 0 || strcmp(val, "greedy") == 0
                                ? CTXPROF_ICPP_SEARCH_OURS
                            : strcmp(val, "random") == 0 ? CTXPROF_ICPP_SEARCH_RANDOM
                            : strcmp(val, "none") == 0   ? CTXPROF_ICPP_SEARCH_NONE
                                                         : -1;
            if (o->pad.search < 0)
                return gen_usage_error("unknown search '%s' (ours, random or none)", val);
        } else if (strcmp(key, "max-growth") == 0) {
            char *end;
            o->pad.max_growth = strtod(val, &end);
            if (*end || end == val || !(o->pad.max_growth >= 1))
                return gen_usage_error("--max-growth takes a number >= 1 or inf, not '%s'", val);
        } else if (strcmp(key, "max-units") == 0) {
            if (!gen_u64(val, &v) || v == 0 || v > 65536)
                return gen_usage_error("--max-units takes 1 .. 65536, not '%s'", val);
            o->pad.max_units = (unsigned)v;
        } else if (strcmp(key, "budget") == 0) {
            if (parse_count(val, &o->pad.budget))
                return gen_usage_error("--budget takes a positive whole number (400000000 or "
                                       "4e8), not '%s'",
                                       val);
        } else if (strcmp(key, "pairs") == 0) {
            if (!gen_u64(val, &v))
                return gen_usage_error("--pairs takes a number, not '%s'", val);
            o->pad.max_pairs = (size_t)v; /* examples kept (default 32) */
        } else if (strcmp(key, "wrap") == 0) {
            o->pad.wrap = 1;
        }
    }
    if (!o->n_inputs)
        return gen_usage_error("no %s given", o->input_kind ? o->input_kind : "call graph");
    return 0;
}

/* ==== gcc titles ====

   gcc titles a function "FILE:NAME" (FILE: the main source file of the
   translation unit) when it is not public, or weak and defined there, so
   that the static functions of two files stay apart. Some such titles name
   one function of the linked program; they are rewritten here, in the
   text, before the library reads a .ci file:

   - C++ inline functions, templates and in-class member functions (vague
     linkage: weak, COMDAT) are titled "a.cpp:_Z4hinli" in every file that
     uses them, but the linker keeps one copy. A NAME that is an
     Itanium-mangled name with external linkage becomes the title, so the
     files' nodes merge into one (edges: the union; frame: the largest).
   - With -flto, FILE is the LTO unit's temporary object,
     "/tmp/ccXXXX.ltrans0.o": it is dropped, so names, messages and the
     header do not change from one build to the next. LTO keeps distinct
     functions distinct by itself (it renames static functions whose names
     clash, name.lto_priv.0, .1, ...); a static name that two units each
     keep is the one case left: the later unit's is "ltrans<N>.o:name".

   A rewritten title keeps its length: the text after it moves by nothing
   (the freed bytes become blanks after the closing quote, and line breaks
   for those the dropped part held), so line and column numbers in
   messages stay right. */

/* Whether the mangled name s[0..n) has external linkage: "_Z...", with no
   internal-linkage source name ("L" before it: _ZL3foov, _ZN2nsL1fEv, or
   a local entity of one, _ZZL3foovE...), no anonymous namespace
   (_GLOBAL__N_) and no clone suffix (".constprop.0", ".part.0": a copy
   local to its file). Identifiers are skipped by their length prefix, so
   an "L1" inside one does not count; an "L<digit>" that is not a linkage
   mark (an enum literal argument, rare) keeps the function per file,
   which is the safe side. */
/* Skips the <length><identifier> at s[*i]; 0 when it runs past the end
   or is the anonymous namespace. */
static int gen_source_name(const char *s, size_t n, size_t *i)
{
    size_t len = 0;
    while (*i < n && s[*i] >= '0' && s[*i] <= '9' && len < n)
        len = len * 10 + (size_t)(s[(*i)++] - '0');
    if (len > n - *i || (len >= 10 && memcmp(s + *i, "_GLOBAL__N", 10) == 0))
        return 0;
    *i += len;
    return 1;
}

static int gen_mangled_external(const char *s, size_t n)
{
    size_t i = 2;
    if (n < 3 || s[0] != '_' || s[1] != 'Z')
        return 0;
    while (i < n) {
        char c = s[i], prev = s[i - 1];
        if (c == '.')
            return 0;
        if (c == 'L' && i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '9')
            return 0;
        if (c >= '1' && c <= '9' &&
            (prev == 'Z' || prev == 'N' || prev == 'E' || prev == 'K' || prev == 'V')) {
            do { /* a nested name continues with the next identifier */
                if (!gen_source_name(s, n, &i))
                    return 0;
            } while (i < n && s[i] >= '1' && s[i] <= '9');
            continue;
        }
        i++;
    }
    return 1;
}

/* The offset in the FILE part f[0..n) of a title of the "ltrans<N>" of an
   LTO unit's object ("/tmp/ccXXXX.ltrans0.o", with -save-temps
   "prog.ltrans0.ltrans.o"), or n when f is not one. */
static size_t gen_ltrans_unit(const char *f, size_t n)
{
    size_t e = n, d;
    if (e < 2 || memcmp(f + e - 2, ".o", 2) != 0)
        return n;
    e -= 2;
    if (e > 8 && memcmp(f + e - 7, ".ltrans", 7) == 0 && f[e - 8] >= '0' && f[e - 8] <= '9')
        e -= 7;
    for (d = e; d > 0 && f[d - 1] >= '0' && f[d - 1] <= '9'; d--)
        ;
    if (d == e || d < 7 || memcmp(f + d - 7, ".ltrans", 7) != 0 || memchr(f + d, '/', n - d))
        return n;
    return d - 6;
}

/* One .ci text's rewriting: the bare names of this LTO unit's functions
   that an earlier unit defines too (they keep "ltrans<N>.o:"). */
typedef struct gen_ci_fix {
    ctxprof_graph *g;
    const char *path;
    char *buf;
    size_t (*keep)[2]; /* (offset, length) of each such NAME in buf */
    size_t n_keep, cap_keep;
    int nomem;
    /* the node block being read (pass 1) */
    size_t title, title_len;
    int in_node, ellipse;
    /* the edge block being read (pass 2), and a hash of each edge */
    int in_edge;
    uint64_t src, dst, label;
    uint64_t *edges;
    size_t n_edges, cap_edges;
} gen_ci_fix;

/* Calls in .ci inputs that repeated an earlier call of their file: gcc
   gives every call inside a nested or macro call (g(g(x)), a macro that
   calls g twice) and every copy of an inlined body the same
   "file:line:col" label, so they are one call site to the library. */
static size_t gen_ci_merged;

/* The offset in a title's text t[0..n) of the name it should have (0: as
   it is). */
static size_t gen_title_keep(const gen_ci_fix *F, const char *t, size_t n)
{
    size_t c = n, u, i;
    while (c > 0 && t[c - 1] != ':')
        c--;
    if (c == 0 || c == n || memchr(t, '\\', n))
        return 0;
    if (gen_mangled_external(t + c, n - c))
        return c;
    u = gen_ltrans_unit(t, c - 1);
    if (u == c - 1)
        return 0;
    for (i = 0; F && i < F->n_keep; i++)
        if (F->keep[i][1] == n - c && memcmp(F->buf + F->keep[i][0], t + c, n - c) == 0)
            return u;
    return c;
}

/* Walks the blocks and strings of a VCG text: fn(user, kind, key, keylen,
   s, n) for each string value (kind '"', key: the word before it, s: the
   text between the quotes), each unquoted word ('w') and each '{' and '}'
   (key: the word before it). Comments are skipped. */
typedef void (*gen_vcg_fn)(void *user, int kind, const char *key, size_t keylen, char *s,
                           size_t n);

static void gen_vcg_walk(char *buf, size_t len, gen_vcg_fn fn, void *user)
{
    size_t i = 0, key = 0, keylen = 0;
    while (i < len) {
        char c = buf[i];
        if (c == '"') {
            size_t s = ++i;
            while (i < len && buf[i] != '"')
                i += buf[i] == '\\' && i + 1 < len ? 2 : 1;
            if (i >= len)
                return; /* unterminated: the library reports it */
            fn(user, '"', buf + key, keylen, buf + s, i - s);
            keylen = 0;
            i++;
        } else if (c == '/' && i + 1 < len && buf[i + 1] == '*') {
            for (i += 2; i + 1 < len && !(buf[i] == '*' && buf[i + 1] == '/'); i++)
                ;
            i += 2;
        } else if (c == '/' && i + 1 < len && buf[i + 1] == '/') {
            while (i < len && buf[i] != '\n')
                i++;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
            size_t w = i;
            while (i < len && ((buf[i] >= 'a' && buf[i] <= 'z') || (buf[i] >= 'A' && buf[i] <= 'Z') ||
                               (buf[i] >= '0' && buf[i] <= '9') || buf[i] == '_'))
                i++;
            fn(user, 'w', buf + key, keylen, buf + w, i - w);
            key = w;
            keylen = i - w;
        } else {
            if (c == '{' || c == '}')
                fn(user, c, buf + key, keylen, buf + i, 0);
            i++;
        }
    }
}

static int gen_key_is(const char *key, size_t keylen, const char *word)
{
    return keylen == strlen(word) && memcmp(key, word, keylen) == 0;
}

/* Pass 1: this LTO unit's functions with a body whose bare name an earlier
   input defines with a body. gcc renames the static functions whose names
   clash inside one unit (name.lto_priv.0, .1, ...) and makes the ones
   called from another unit public, but two units can each keep a static
   function of one name: those stay apart, the later as "ltrans<N>.o:name". */
static void gen_ci_pass1(void *user, int kind, const char *key, size_t keylen, char *s, size_t n)
{
    gen_ci_fix *F = (gen_ci_fix *)user;
    if (kind == '{') {
        F->in_node = gen_key_is(key, keylen, "node");
        F->title_len = 0;
        F->ellipse = 0;
    } else if (kind == '"' && F->in_node && gen_key_is(key, keylen, "title")) {
        F->title = (size_t)(s - F->buf);
        F->title_len = n;
    } else if (kind == 'w' && F->in_node && gen_key_is(key, keylen, "shape")) {
        F->ellipse = n == 7 && memcmp(s, "ellipse", 7) == 0;
    } else if (kind == '}' && F->in_node) {
        const char *t = F->buf + F->title;
        size_t c = F->title_len, u;
        char *name;
        long id;
        F->in_node = 0;
        if (!F->title_len || F->ellipse || memchr(t, '\\', F->title_len))
            return;
        while (c > 0 && t[c - 1] != ':')
            c--;
        if (c == 0 || c == F->title_len || gen_mangled_external(t + c, F->title_len - c) ||
            (u = gen_ltrans_unit(t, c - 1)) == c - 1)
            return;
        if (!(name = (char *)malloc(F->title_len - c + 1))) {
            F->nomem = 1;
            return;
        }
        memcpy(name, t + c, F->title_len - c);
        name[F->title_len - c] = '\0';
        id = ctxprof_graph_find(F->g, name);
        if (id >= 0 && (F->g->nodes[id].flags & CTXPROF_GRAPH_NODE_DEFINED) &&
            !(F->g->nodes[id].flags & CTXPROF_GRAPH_NODE_EXTERN)) {
            if (F->n_keep == F->cap_keep) {
                size_t cap = F->cap_keep ? 2 * F->cap_keep : 8;
                size_t(*more)[2] = (size_t(*)[2])realloc(F->keep, cap * sizeof *more);
                if (!more) {
                    F->nomem = 1;
                    free(name);
                    return;
                }
                F->keep = more;
                F->cap_keep = cap;
            }
            F->keep[F->n_keep][0] = F->title + c;
            F->keep[F->n_keep][1] = F->title_len - c;
            F->n_keep++;
            fprintf(stderr,
                    "%s: note: %s: static '%s' is defined in two LTO units; this one is "
                    "called %.*s\n",
                    gen_prog, F->path, name, (int)(F->title_len - u), t + u);
        }
        free(name);
    }
}

/* Pass 2: rewrites the titles in place. */
static void gen_ci_pass2(void *user, int kind, const char *key, size_t keylen, char *s, size_t n)
{
    gen_ci_fix *F = (gen_ci_fix *)user;
    size_t k;
    if (kind == '{') {
        F->in_edge = gen_key_is(key, keylen, "edge") || gen_key_is(key, keylen, "nearedge") ||
                     gen_key_is(key, keylen, "bentnearedge") ||
                     gen_key_is(key, keylen, "backedge");
        F->src = F->dst = F->label = 0;
    } else if (kind == '}' && F->in_edge) {
        F->in_edge = 0;
        if (F->n_edges == F->cap_edges) {
            size_t cap = F->cap_edges ? 2 * F->cap_edges : 64;
            uint64_t *more = (uint64_t *)realloc(F->edges, cap * sizeof *more);
            if (!more) {
                F->nomem = 1;
                return;
            }
            F->edges = more;
            F->cap_edges = cap;
        }
        if (F->dst != ctxprof_hash_bytes("__indirect_call", 15, 1)) /* counted by the library */
            F->edges[F->n_edges++] = ctxprof_mix64(F->src ^ ctxprof_mix64(F->dst + F->label));
    } else if (kind == '"' &&
               (gen_key_is(key, keylen, "title") || gen_key_is(key, keylen, "sourcename") ||
                gen_key_is(key, keylen, "targetname"))) {
        if ((k = gen_title_keep(F, s, n)) > 0) {
            size_t j, breaks = 0; /* in the part dropped (a file name may hold one) */
            for (j = 0; j < k; j++)
                breaks += s[j] == '\n';
            memmove(s, s + k, n - k);
            s[n - k] = '"';
            memset(s + n - k + 1, ' ', k);
            memset(s + n - k + 1, '\n', breaks); /* later lines keep their numbers */
            n -= k;
        }
        if (F->in_edge && keylen == 10)
            *(key[0] == 's' ? &F->src : &F->dst) = ctxprof_hash_bytes(s, n, 1);
    } else if (kind == '"' && F->in_edge && gen_key_is(key, keylen, "label")) {
        F->label = ctxprof_hash_bytes(s, n, 2);
    }
}

/* Rewrites the titles of one .ci text in place (see above); -1 when out
   of memory. */
static int gen_ci_titles(ctxprof_graph *g, const char *path, char *buf, size_t len)
{
    gen_ci_fix F;
    memset(&F, 0, sizeof F);
    F.g = g;
    F.path = path;
    F.buf = buf;
    gen_vcg_walk(buf, len, gen_ci_pass1, &F);
    if (!F.nomem)
        gen_vcg_walk(buf, len, gen_ci_pass2, &F);
    if (!F.nomem && F.n_edges > 1) {
        size_t i;
        qsort(F.edges, F.n_edges, sizeof *F.edges, ctxprof__u64_cmp);
        for (i = 1; i < F.n_edges; i++)
            gen_ci_merged += F.edges[i] == F.edges[i - 1];
    }
    free(F.edges);
    free(F.keep);
    return F.nomem ? -1 : 0;
}

/* Whether text[0..len) is a gcc .ci graph (the library's test: "graph" or
   a comment first). */
static int gen_is_vcg(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n'))
        i++;
    return (len - i >= 5 && memcmp(s + i, "graph", 5) == 0) ||
           (len - i >= 2 && s[i] == '/' && (s[i + 1] == '/' || s[i + 1] == '*'));
}

/* Reads one input into g, gcc titles rewritten; prints errors. */
static int gen_load_one(ctxprof_graph *g, const char *path)
{
    const char *name;
    char *buf;
    size_t len;
    ctxprof_error err;
    int st;
    if (ctxprof__read_file(path, &buf, &len, NULL, &err) != CTXPROF_OK) {
        gen_error(ctxprof_error_message(&err));
        return GEN_EXIT_USAGE;
    }
    name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    if (gen_is_vcg(buf, len) && gen_ci_titles(g, name, buf, len)) {
        free(buf);
        fprintf(stderr, "%s: error: out of memory\n", gen_prog);
        return GEN_EXIT_USAGE;
    }
    st = ctxprof_graph_parse(g, buf, len, name);
    free(buf);
    if (st != CTXPROF_OK) {
        gen_error(ctxprof_graph_last_error(g));
        return st == CTXPROF_ERR_SYS || st == CTXPROF_ERR_NOMEM ? GEN_EXIT_USAGE : GEN_EXIT_INPUT;
    }
    return 0;
}

/* Reads and analyses the inputs; prints errors. */
static int gen_load(const gen_opts *o, ctxprof_graph *g)
{
    ctxprof_graph_desc d;
    size_t i;
    memset(&d, 0, sizeof d);
    d.root = o->root;
    d.log = gen_log;
    if (ctxprof_graph_init(g, &d) != CTXPROF_OK) {
        gen_error(ctxprof_graph_last_error(g));
        return GEN_EXIT_USAGE;
    }
    for (i = 0; i < o->n_inputs; i++) {
        int rc = gen_load_one(g, o->inputs[i]);
        if (rc)
            return rc;
    }
    if (ctxprof_graph_finish(g) != CTXPROF_OK) {
        gen_error(ctxprof_graph_last_error(g));
        return GEN_EXIT_INPUT;
    }
    return 0;
}

/* "build/expr_ctx.h" -> "EXPR_CTX_H_INCLUDED"; with a prefix other than
   the default, that prefix in capitals first ("-p lib_": LIB_EXPR_CTX_H_...),
   so that two headers named alike (lib/ctx.h, app/ctx.h) keep apart. */
static void gen_guard_of(const char *path, const char *prefix, char *out, size_t size)
{
    const char *base = strrchr(path, '/');
    size_t i = 0;
    base = base ? base + 1 : path;
    if (prefix && strcmp(prefix, "ctxprof_gen_") != 0)
        for (; *prefix && i + 13 < size; prefix++)
            out[i++] = (char)(*prefix >= 'a' && *prefix <= 'z' ? *prefix - 'a' + 'A' : *prefix);
    if (i == 0 && *base >= '0' && *base <= '9')
        out[i++] = '_';
    for (; *base && i + 12 < size; base++) {
        char c = *base;
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            c = '_';
        out[i++] = c;
    }
    snprintf(out + i, size - i, "_INCLUDED");
}

/* ==== outputs ====

   -o FILE goes through the library's atomic writer: a temporary file
   beside FILE, renamed over it once all is written and synced; "-" is
   standard output, written as it comes. The header streams in pieces of
   about 1 MiB (ctxprof_enc_emit), so the temporary file of a big program
   can grow to 100 MB before the rename: SIGINT, SIGTERM and SIGHUP remove
   it (the library installs no signal handler; the tool does, for the
   signals it was not started with ignored). */

typedef struct gen_out {
    ctxprof__atomic_file af; /* af.fd 1 for standard output */
    const char *path;        /* as given, for messages */
    int err;                 /* the first write's errno */
} gen_out;

/* The temporary file to remove on a signal: a copy of its name, and
   whether it exists. The handler calls only unlink, sigaction and raise
   (async-signal-safe). */
static char gen_tmp_name[sizeof(((ctxprof__atomic_file *)0)->tmp)];
static volatile sig_atomic_t gen_tmp_live;
static const int gen_fatal_signals[3] = {SIGINT, SIGTERM, SIGHUP};

static void gen_on_signal(int sig)
{
    struct sigaction dfl;
    if (gen_tmp_live)
        unlink(gen_tmp_name);
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig); /* delivered when the handler returns: the status says "killed by sig" */
}

/* Blocks the signals above (the old mask to *old) around the steps that
   create, rename or remove the temporary file, so that the handler never
   sees its name half copied or removes a file renamed into place. */
static void gen_signals_block(sigset_t *old)
{
    sigset_t set;
    size_t i;
    sigemptyset(&set);
    for (i = 0; i < 3; i++)
        sigaddset(&set, gen_fatal_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

/* Opens the output; prints the error and returns the exit status. */
static int gen_out_open(gen_out *o, const char *path)
{
    static int handlers;
    ctxprof_error err;
    sigset_t old;
    int rc;
    memset(o, 0, sizeof *o);
    o->path = path;
    o->af.fd = 1;
    if (strcmp(path, "-") == 0)
        return 0;
    if (!handlers) { /* a signal the tool was started with ignored (nohup) stays so */
        size_t i;
        handlers = 1;
        for (i = 0; i < 3; i++) {
            struct sigaction sa, prev;
            if (sigaction(gen_fatal_signals[i], NULL, &prev) != 0 || prev.sa_handler == SIG_IGN)
                continue;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = gen_on_signal;
            sigemptyset(&sa.sa_mask);
            sigaction(gen_fatal_signals[i], &sa, NULL);
        }
    }
    gen_signals_block(&old);
    rc = ctxprof__atomic_open(&o->af, path, &err);
    if (rc == CTXPROF_OK && o->af.tmp[0]) {
        memcpy(gen_tmp_name, o->af.tmp, sizeof gen_tmp_name);
        gen_tmp_live = 1;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (rc != CTXPROF_OK) {
        gen_error(ctxprof_error_message(&err));
        return GEN_EXIT_USAGE;
    }
    return 0;
}

/* The write callback of ctxprof_enc_emit, and the writer of the others. */
static int gen_out_write(void *user, const char *data, size_t len)
{
    gen_out *o = (gen_out *)user;
    if (!o->err)
        o->err = ctxprof__write_all(o->af.fd, (const unsigned char *)data, len);
    return o->err ? -1 : 0;
}

/* Whether what was written is on disk (a file: fsync of the temporary
   file); prints the error. Lets pad print its report only once nothing
   is left that can fail but the rename. */
static int gen_out_sync(gen_out *o)
{
    if (!o->err && o->af.tmp[0] && fsync(o->af.fd) != 0)
        o->err = errno;
    return o->err;
}

/* Finishes the output: with ok, renames the temporary file over the path;
   else (or when a write failed) removes it and leaves the path as it was.
   Prints what failed; returns 0 or the exit status. */
static int gen_out_close(gen_out *o, int ok)
{
    ctxprof_error err;
    sigset_t old;
    int rc, e = o->err ? o->err : ok ? 0 : ECANCELED;
    if (o->af.fd == 1 && !o->af.tmp[0] && strcmp(o->path, "-") == 0) {
        if (o->err)
            fprintf(stderr, "%s: error: writing standard output: %s\n", gen_prog, strerror(o->err));
        return o->err ? GEN_EXIT_USAGE : 0;
    }
    gen_signals_block(&old);
    rc = ctxprof__atomic_commit(&o->af, e, o->path, &err);
    gen_tmp_live = 0;
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (rc != CTXPROF_OK && (o->err || ok)) { /* not the cancel asked for */
        gen_error(ctxprof_error_message(&err));
        return GEN_EXIT_USAGE;
    }
    return 0;
}

/* Refuses an output that is one of the inputs (the same file, by device
   and inode: -o x.cg x.cg would replace the input with the header). */
static int gen_out_is_input(const char *out, const char *const *inputs, size_t n)
{
    struct stat so, si;
    size_t i;
    if (!out || strcmp(out, "-") == 0 || stat(out, &so) != 0 || !S_ISREG(so.st_mode))
        return 0;
    for (i = 0; i < n; i++) {
        int same = strcmp(inputs[i], "-") == 0 ? fstat(0, &si) == 0 : stat(inputs[i], &si) == 0;
        if (same && si.st_dev == so.st_dev && si.st_ino == so.st_ino) {
            fprintf(stderr, "%s: error: the output %s is the input %s: not overwriting it\n",
                    gen_prog, out, inputs[i]);
            return GEN_EXIT_USAGE;
        }
    }
    return 0;
}

static int cmd_emit(int argc, char **argv)
{
    gen_opts o;
    ctxprof_graph g;
    ctxprof_enc_emit_desc d;
    ctxprof_error err;
    char guard[256], *text = NULL;
    size_t len = 0;
    gen_out go;
    int rc, st;
    memset(&o, 0, sizeof o);
    o.cmd = "";
    o.out = "-";
    if ((rc = gen_parse(argc, argv, "o p bits scheme all-schemes root guard", &o)) != 0)
        return rc < 0 ? 0 : rc;
    memset(&err, 0, sizeof err);
    if ((o.prefix && ctxprof__enc_prefix_check(o.prefix, &err)) ||
        (o.guard && ctxprof__enc_guard_check(o.guard, &err)))
        return gen_usage_error("%s", err.detail); /* before the graphs are read */
    if ((rc = gen_out_is_input(o.out, o.inputs, o.n_inputs)) != 0)
        return rc;
    memset(&g, 0, sizeof g);
    if ((rc = gen_load(&o, &g)) != 0)
        goto out;
    memset(&err, 0, sizeof err);
    memset(&d, 0, sizeof d);
    d.prefix = o.prefix;
    if (o.guard)
        d.guard = o.guard;
    else if (strcmp(o.out, "-") != 0) {
        gen_guard_of(o.out, o.prefix, guard, sizeof guard);
        d.guard = guard;
    }
    d.inputs = o.inputs;
    d.n_inputs = o.n_inputs;
    d.ctx_bits = o.bits;
    d.schemes = o.mask;
    d.default_scheme = o.scheme;
    /* streamed: the text of a big program's header never sits in memory */
    if ((rc = gen_out_open(&go, o.out)) != 0)
        goto out;
    d.write = gen_out_write;
    d.write_user = &go;
    st = ctxprof_enc_emit(&g, &d, &text, &len, &err);
    if (st != CTXPROF_OK && !go.err) { /* a failed write is the output's to tell */
        gen_error(ctxprof_error_message(&err));
        rc = err.status == CTXPROF_ERR_NOMEM || err.status == CTXPROF_ERR_SYS ? GEN_EXIT_USAGE
                                                                              : GEN_EXIT_INPUT;
    }
    st = gen_out_close(&go, st == CTXPROF_OK); /* a failed emit removes the temporary file */
    if (!rc)
        rc = st;
out:
    ctxprof_graph_free_buffer(text, NULL);
    ctxprof_graph_deinit(&g);
    return rc;
}

static int cmd_stats(int argc, char **argv)
{
    gen_opts o;
    ctxprof_graph g;
    ctxprof_enc_stats s;
    ctxprof_error err;
    int rc;
    memset(&o, 0, sizeof o);
    o.cmd = "stats";
    if ((rc = gen_parse(argc, argv, "root", &o)) != 0)
        return rc < 0 ? 0 : rc;
    memset(&g, 0, sizeof g);
    if ((rc = gen_load(&o, &g)) != 0)
        goto out;
    memset(&err, 0, sizeof err);
    if (ctxprof_enc_stats_compute(&g, &s, &err) != CTXPROF_OK) {
        gen_error(ctxprof_error_message(&err));
        rc = GEN_EXIT_USAGE;
        goto out;
    }
    printf("nodes=%lu\nedges=%lu\nsccs=%lu\ncomplex_sccs=%lu\ncyclic_edges=%lu\n"
           "pcce_bits=%u\nvalence_bits=%u\nhcce_bits=%u\n",
           (unsigned long)s.nodes, (unsigned long)s.edges, (unsigned long)s.sccs,
           (unsigned long)s.complex_sccs, (unsigned long)s.cyclic_edges, (unsigned)s.pcce_bits,
           (unsigned)s.valence_bits, (unsigned)s.hcce_bits);
    printf("auto_bits=%u\nback_edges=%lu\nroots=%lu\nunreachable=%lu\nindirect_sites=%lu\n"
           "indirect_open=%lu\nvalence_rec_bits=%u\nauto_rec_bits_max=%u\npcce_push_edges=%lu\n"
           "hcce_push_edges=%lu\nauto_push_edges=%lu\nci_merged_calls=%lu\n",
           (unsigned)s.auto_bits, (unsigned long)s.back_edges, (unsigned long)s.roots,
           (unsigned long)g.n_unreachable, (unsigned long)g.n_indirect,
           (unsigned long)g.n_indirect_open,
           (unsigned)s.valence_rec_bits, (unsigned)s.auto_rec_bits_max,
           (unsigned long)s.pcce_push_edges, (unsigned long)s.hcce_push_edges,
           (unsigned long)s.auto_push_edges, (unsigned long)gen_ci_merged);
out:
    ctxprof_graph_deinit(&g);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    gen_opts o;
    ctxprof_graph g;
    ctxprof_enc_check_desc d;
    ctxprof_enc_check_result r;
    ctxprof_error err;
    int rc, s, all = 1;
    memset(&o, 0, sizeof o);
    o.cmd = "check";
    if ((rc = gen_parse(argc, argv, "walks seed depth steps root", &o)) != 0)
        return rc < 0 ? 0 : rc;
    if (!o.walks)
        return gen_usage_error("%s", "check needs --walks N");
    memset(&g, 0, sizeof g);
    if ((rc = gen_load(&o, &g)) != 0)
        goto out;
    memset(&d, 0, sizeof d);
    d.walks = o.walks;
    d.seed = o.seed;
    d.depth = o.depth;
    d.max_steps = o.steps;
    d.full_depth = 256;
    memset(&err, 0, sizeof err);
    if (ctxprof_enc_check(&g, &d, &r, &err) != CTXPROF_OK) {
        gen_error(ctxprof_error_message(&err));
        rc = err.status == CTXPROF_ERR_NOMEM ? GEN_EXIT_USAGE : GEN_EXIT_INPUT;
        goto out;
    }
    printf("steps=%llu\nchecked=%llu\n", (unsigned long long)r.steps,
           (unsigned long long)r.checked);
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++) {
        printf("decoded_%s=%llu\n", ctxprof_enc_scheme_name(s), (unsigned long long)r.decoded[s]);
        if (r.decoded[s] != r.checked)
            all = 0;
    }
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        printf("avg_words_%s=%.3f\n", ctxprof_enc_scheme_name(s),
               r.steps ? (double)r.words_sum[s] / (double)r.steps : 0.0);
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        printf("max_words_%s=%llu\n", ctxprof_enc_scheme_name(s),
               (unsigned long long)r.max_words[s]);
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        printf("avg_bits_%s=%.1f\n", ctxprof_enc_scheme_name(s),
               r.steps ? (double)r.bits_sum[s] / (double)r.steps : 0.0);
    for (s = 1; s < CTXPROF_ENC_NSCHEMES; s++)
        printf("max_bits_%s=%llu\n", ctxprof_enc_scheme_name(s),
               (unsigned long long)r.max_bits[s]);
    printf("walks=%llu\nseed=%llu\ndepth=%u\ncalls=%llu\nmax_depth=%llu\n",
           (unsigned long long)o.walks, (unsigned long long)o.seed,
           (unsigned)(o.depth ? o.depth : 64), (unsigned long long)r.calls,
           (unsigned long long)r.max_depth);
    if (r.checked < r.steps)
        fprintf(stderr,
                "%s: note: decoded every step up to depth %u and a sample of %llu of the "
                "%llu deeper steps (decoding costs the depth; lengths are measured at every "
                "step)\n",
                gen_prog, (unsigned)d.full_depth, (unsigned long long)r.sampled,
                (unsigned long long)(r.steps - (r.checked - r.sampled)));
    if (!all) {
        printf("failure=%s\n", r.failure);
        fprintf(stderr, "%s: error: decoding failed: %s\n", gen_prog, r.failure);
        rc = GEN_EXIT_INPUT;
    }
out:
    ctxprof_graph_deinit(&g);
    return rc;
}

/* ctxprof-gen callgraph: the dynamic call graph of a training run, from
   ICPP path maps (the -finstrument-functions hooks record every call path
   they see): an edge for each caller -> callee on a path, the root the
   first function of the most entered paths. No site labels: merged with
   gcc's graph an edge matches any call site of its caller and callee. */
static int cmd_callgraph(int argc, char **argv)
{
    gen_opts o;
    ctxprof_graph g;
    ctxprof_error err;
    char *text = NULL;
    size_t len = 0, k, cap = 0;
    uint32_t *funcs = NULL;
    uint64_t *root_count = NULL;
    long root = -1;
    int rc;
    memset(&o, 0, sizeof o);
    o.cmd = "callgraph";
    o.out = "-";
    o.input_kind = "path map";
    if ((rc = gen_parse(argc, argv, "o root", &o)) != 0)
        return rc < 0 ? 0 : rc;
    if ((rc = gen_out_is_input(o.out, o.inputs, o.n_inputs)) != 0)
        return rc;
    if (ctxprof_graph_init(&g, NULL) != CTXPROF_OK)
        return GEN_EXIT_USAGE;
    for (k = 0; k < o.n_inputs && rc == 0; k++) {
        ctxprof_icpp_map map;
        size_t p, best = 0;
        memset(&map, 0, sizeof map);
        if (ctxprof_icpp_map_load(&map, o.inputs[k], &err) != CTXPROF_OK) {
            gen_error(ctxprof_error_message(&err));
            rc = err.status == CTXPROF_ERR_SYS ? GEN_EXIT_USAGE : GEN_EXIT_INPUT;
            break;
        }
        if (map.paths == 0) { /* as pad: a graph of no edges is no use */
            fprintf(stderr,
                    "%s: error: no paths (did the training run enter an instrumented "
                    "function?)\n",
                    o.inputs[k]);
            ctxprof_icpp_map_deinit(&map);
            rc = GEN_EXIT_INPUT;
            break;
        }
        free(root_count);
        if (!(root_count = (uint64_t *)calloc(map.funcs + 1, sizeof *root_count))) {
            fprintf(stderr, "%s: error: out of memory\n", gen_prog);
            rc = GEN_EXIT_USAGE;
        }
        for (p = 0; rc == 0 && p < map.paths; p++) {
            ctxprof_icpp_path_info pi;
            size_t n, i;
            if (ctxprof_icpp_map_path(&map, (uint32_t)p, &pi) != CTXPROF_OK || pi.len == 0)
                continue;
            if (pi.len > cap) {
                uint32_t *more = (uint32_t *)realloc(funcs, pi.len * sizeof *funcs);
                if (!more) {
                    fprintf(stderr, "%s: error: out of memory\n", gen_prog);
                    rc = GEN_EXIT_USAGE;
                    break;
                }
                funcs = more;
                cap = pi.len;
            }
            n = ctxprof_icpp_map_path_funcs(&map, (uint32_t)p, funcs, cap);
            /* saturating: two counts of 2^63 wrapped to 0 and lost to a count of 1 */
            root_count[funcs[0]] = pi.count > UINT64_MAX - root_count[funcs[0]]
                                       ? UINT64_MAX
                                       : root_count[funcs[0]] + pi.count;
            if (root_count[funcs[0]] > root_count[best])
                best = funcs[0];
            for (i = 0; i + 1 < n && rc == 0; i++)
                if (ctxprof_graph_add_edge(&g, ctxprof_icpp_map_func_name(&map, funcs[i]),
                                           ctxprof_icpp_map_func_name(&map, funcs[i + 1]),
                                           NULL) < 0) {
                    gen_error(ctxprof_graph_last_error(&g)); /* a name, or memory */
                    rc = GEN_EXIT_USAGE;
                }
        }
        if (rc == 0 && root < 0 && map.paths) /* the root of the first map's most entered paths */
            root = ctxprof_graph_find(&g, ctxprof_icpp_map_func_name(&map, (uint32_t)best));
        ctxprof_icpp_map_deinit(&map);
    }
    if (rc == 0 && g.n_edges == 0) { /* paths of one function each: no call was seen */
        fprintf(stderr, "%s: error: no calls in the path maps (every path is one function)\n",
                gen_prog);
        rc = GEN_EXIT_INPUT;
    }
    if (rc == 0 && (o.root || root >= 0) &&
        ctxprof_graph_set_root(&g, o.root ? o.root : g.nodes[root].name) != CTXPROF_OK) {
        gen_error(ctxprof_graph_last_error(&g));
        rc = GEN_EXIT_USAGE;
    }
    if (rc == 0 && ctxprof_graph_write(&g, &text, &len) != CTXPROF_OK) {
        fprintf(stderr, "%s: error: out of memory\n", gen_prog);
        rc = GEN_EXIT_USAGE;
    }
    if (rc == 0) {
        gen_out go;
        if ((rc = gen_out_open(&go, o.out)) == 0) {
            gen_out_write(&go, text, len);
            rc = gen_out_close(&go, 1);
        }
    }
    ctxprof_graph_free_buffer(text, NULL);
    free(funcs);
    free(root_count);
    ctxprof_graph_deinit(&g);
    return rc;
}

static const char gen_help_pad[] =
    "pad computes frame padding for ICPP (activation record resizing, Mytkowicz\n"
    "et al. OOPSLA'09 sec. 5) from a path map written by a training run:\n"
    "\n"
    "    ctxprof-paths 1\n"
    "    path COUNT HEIGHT F1 F2 ... Fn    # F1 the root, HEIGHT stack bytes\n"
    "\n"
    "It prints key=value lines (paths, precise_before, precise_after,\n"
    "ambiguity_le2_after, max_stack_growth, inseparable, precise_bound,\n"
    "precise_bound_capped: at most what padding within the cap can reach, ...)\n"
    "on stdout and writes the CTXPROF_PAD_<function> table to OUT.h (with -o -,\n"
    "the table goes to stdout and the report to stderr). The largest padded\n"
    "height stays within --max-growth X times the unpadded one (default 1.2;\n"
    "'inf': no limit).\n"
    "--search ours (default): coordinate sweeps, iterated local search, then\n"
    "simulated annealing, within --budget N unit moves (default 1.2e9, 1-10 CPU\n"
    "seconds; deterministic).\n"
    "--max-units N: the largest pad of one function, in 16 bytes (default 256).\n"
    "--search random: the paper's random search (5.1.1), with no growth limit\n"
    "unless --max-growth is given (the paper bounds no pad: --max-units 65536\n"
    "comes closest, and can take hours on large maps). --wrap also picks call-site wraps (5.2) for what\n"
    "padding cannot separate; --pairs N lists N such pairs and why, permutations\n"
    "first (naming an edge whose call sites a wrap separates them by), then\n"
    "identical edges (only cloning, 5.3, does); the common prefix of the two\n"
    "paths is printed once, elided as FIRST>[N]>LAST.\n"
    "FRAMES (optional, any number): gcc -fstack-usage output (.su, a line\n"
    "'file.c:LINE:COL:NAME<TAB>BYTES<TAB>static' per function; a C++ NAME,\n"
    "'int ns::f(int)', matches the path map's _ZN2ns1fEi by its qualified name), gcc\n"
    "-fcallgraph-info=su output (.ci, 'N bytes (static)' per function) or a\n"
    "ctxprof-callgraph file with 'func NAME frame=BYTES' lines; adds frames_known\n"
    "and the largest frame growth. A run that fails prints no report.\n";

static const char gen_help_usage[] =
    "usage: ctxprof-gen [options] GRAPH...           write the header\n"
    "       ctxprof-gen stats [--root F] GRAPH...    print graph statistics (key=value)\n"
    "       ctxprof-gen check GRAPH... --walks N [--seed S] [--depth D] [--steps K]\n"
    "                                                 verify the encodings (key=value)\n"
    "       ctxprof-gen callgraph [-o OUT] [--root F] PATHMAP...\n"
    "                                                 dynamic call graph of a training run\n"
    "       ctxprof-gen pad [-o OUT.h] [--search ours|random|none] [--max-growth X]\n"
    "                       [--budget N] [--max-units N] [--seed N] [--wrap] [--pairs N]\n"
    "                       PATHMAP [FRAMES...]\n"
    "                                                 ICPP frame padding (key=value)\n"
    "       ctxprof-gen [COMMAND] --help | --version\n";

static const char gen_help[] =
    "\n"
    "Header options:\n"
    "  -o FILE          output (default - = stdout); written atomically\n"
    "  -p PREFIX        prefix of tables and macros (default ctxprof_gen_, macros CTXPROF_GEN_)\n"
    "  --bits 32|64     the CTXPROF_CTX_BITS the header requires (default 64)\n"
    "  --scheme S       scheme of CALL: pcce, valence, hcce or auto (default auto)\n"
    "  --all-schemes    also emit the other three schemes' macros and tables\n"
    "  --root F         root function (default: the inputs' root line, else main)\n"
    "  --guard NAME     include guard (default: from the output file name)\n"
    "\n"
    "Inputs (several are merged into one program graph; '-' reads stdin):\n"
    "\n"
    "  1. The ctxprof-callgraph text format. '#' starts a comment; blank lines\n"
    "     are ignored; names are any non-space token:\n"
    "\n"
    "        ctxprof-callgraph 1\n"
    "        root main\n"
    "        func NAME [frame=BYTES]          # optional; frame = activation record size\n"
    "        call CALLER CALLEE [site=LABEL]  # one call edge; LABEL tells apart two\n"
    "                                         # call sites of CALLER to CALLEE\n"
    "\n"
    "     A repeated call line is an error; the same edge in two inputs merges\n"
    "     (an edge without site= matches any site of its caller and callee).\n"
    "     A dynamic call graph in this format (ctxprof-gen callgraph, from a\n"
    "     training run's path map), given after gcc's .ci files, supplies the\n"
    "     targets of indirect calls: each callee the run saw from a caller\n"
    "     becomes an edge of that caller. Its names resolve to gcc's static\n"
    "     functions (file.c:name) defined once; an ambiguous or unknown name\n"
    "     is a warning with file:line.\n"
    "\n"
    "  2. gcc's call graphs: compile with -fcallgraph-info=su and pass the .ci\n"
    "     files (VCG: graph: { node: { title: ... label: ... } edge: { sourcename:\n"
    "     ... targetname: ... label: \"file:line:col\" } }). Edge labels become site\n"
    "     labels, frame sizes are kept, static functions (titled file.c:name) are\n"
    "     called by their name when it is unique; calls through pointers (gcc's\n"
    "     __indirect_call) are counted and dropped, with a warning naming them.\n"
    "\n"
    "The header defines, for every call edge, a statement macro; at the call site:\n"
    "\n"
    "    #include \"my_ctx.h\"\n"
    "    CTXPROF_CALL(CTXPROF_EDGE(parse_expr, parse_term, 0), r = parse_term(p));\n"
    "\n"
    "(site 0, 1, ... counts the calls from caller to callee in input order), the\n"
    "acyclic widths (PREFIX_AUTO_BASE...), node ids (CTXPROF_NODE(f)) and, in the\n"
    "TU that defines CTXPROF_IMPLEMENTATION, the decode tables (PREFIXtables()).\n"
    "It #errors when CTXPROF_CTX_BITS differs from --bits.\n"
    "\n";

static const char gen_help_cmds[] =
    "Schemes: pcce (Sumner et al.: one 64-bit id, a word pushed per recursive\n"
    "call), valence (Zhou et al. CC'19: bit fields, ceil(log2 C) bits per cyclic\n"
    "edge), hcce (the paper's hybrid), auto (ctxprof: PCCE numbering of the\n"
    "condensed graph, recursion codes sized per target function, and per SCC\n"
    "PCCE-style numbering where that is shorter; when its ids overflow 64 bits,\n"
    "Valence's levels instead if those are shorter).\n"
    "\n"
    "stats prints nodes edges sccs complex_sccs cyclic_edges pcce_bits valence_bits\n"
    "hcce_bits (Table 1 of the Valence paper) and more. check runs N random\n"
    "call/return walks through the run-time encoders: each descends toward\n"
    "--depth (default 64; every other walk to a depth in depth/2..depth),\n"
    "preferring recursive calls and callees that call further, then unwinds\n"
    "(--steps per walk, default 8 x depth). It measures every step, decodes every\n"
    "scheme at every step up to depth 256 and a sample of the deeper ones, and\n"
    "prints steps, checked (steps decoded), decoded_<scheme>, avg_words_<scheme>,\n"
    "max_words_<scheme> (and bits); exit status 1 if a checked step did not decode.\n"
    "\n"
    "callgraph writes the ctxprof-callgraph file of a training run from ICPP path\n"
    "maps (ctxprof-paths 1, CTXPROF_ICPP_TRAIN=file with the -finstrument-functions\n"
    "hooks): an edge per caller -> callee on a path, root the first function of the\n"
    "most entered paths (or --root).\n"
    "\n"
    "Exit status: 0 ok, 1 bad input or failed check, 2 usage or I/O error.\n";

/* ==== C++ names in .su files ====

   gcc's -fstack-usage writes a C++ function by its display name ("static
   long int ns::C::bar(long int)", "T W<T>::get() [with T = long int]"); a
   path map names it by its symbol, mangled ("_ZN2ns1C3barEl", as the .ci
   titles do). The two meet on a key: the qualified name without template
   arguments, parameters and return type ("ns::C::bar", "W::get",
   "A::~A", "A::operator()", "{anonymous}::f"). Overloads and template
   instances share their key, and take the largest frame among them (as a
   static name in several files does). A name either side cannot make a
   key of (a lambda, a local class, a conversion operator) gets no frame. */

/* Appends s[0..n) to out (cap bytes, NUL-terminated); 0, or -1 when full. */
static int gen_key_put(char *out, size_t cap, size_t *len, const char *s, size_t n)
{
    if (*len + n + 1 > cap)
        return -1;
    memcpy(out + *len, s, n);
    *len += n;
    out[*len] = '\0';
    return 0;
}

/* The operator names of the Itanium ABI that keys spell out. */
static const char *gen_cxx_operator(const char *code)
{
    static const char *const ops[][2] = {
        {"nw", "new"}, {"na", "new[]"}, {"dl", "delete"}, {"da", "delete[]"}, {"ps", "+"},
        {"ng", "-"},   {"ad", "&"},     {"de", "*"},      {"co", "~"},        {"pl", "+"},
        {"mi", "-"},   {"ml", "*"},     {"dv", "/"},      {"rm", "%"},        {"an", "&"},
        {"or", "|"},   {"eo", "^"},     {"aS", "="},      {"pL", "+="},       {"mI", "-="},
        {"mL", "*="},  {"dV", "/="},    {"rM", "%="},     {"aN", "&="},       {"oR", "|="},
        {"eO", "^="},  {"ls", "<<"},    {"rs", ">>"},     {"lS", "<<="},      {"rS", ">>="},
        {"eq", "=="},  {"ne", "!="},    {"lt", "<"},      {"gt", ">"},        {"le", "<="},
        {"ge", ">="},  {"ss", "<=>"},   {"nt", "!"},      {"aa", "&&"},       {"oo", "||"},
        {"pp", "++"},  {"mm", "--"},    {"cm", ","},      {"pm", "->*"},      {"pt", "->"},
        {"cl", "()"},  {"ix", "[]"},
    };
    size_t i;
    for (i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (code[0] == ops[i][0][0] && code[1] == ops[i][0][1])
            return ops[i][1];
    return NULL;
}

/* Skips the template arguments at m[*i] ('I' ... 'E'): nesting counted
   over the constructs that end in 'E', names skipped by their length, a
   literal (L type value E) whole. 0, or -1 when it does not parse. */
static int gen_skip_template_args(const char *m, size_t *i)
{
    int depth = 0;
    do {
        char c = m[*i];
        if (!c)
            return -1;
        if (c >= '1' && c <= '9') {
            size_t len = 0;
            while (m[*i] >= '0' && m[*i] <= '9')
                len = len * 10 + (size_t)(m[(*i)++] - '0');
            if (strlen(m + *i) < len)
                return -1;
            *i += len;
            continue;
        }
        if (c == 'L' && m[*i + 1] != '_') { /* literal: L <type> [n]<digits> E */
            for ((*i)++; m[*i] && m[*i] != 'E'; (*i)++)
                ;
            if (!m[*i])
                return -1;
            (*i)++;
            continue;
        }
        if (c == 'I' || c == 'N' || c == 'X' || c == 'J' || c == 'L')
            depth++;
        else if (c == 'E')
            depth--;
        (*i)++;
    } while (depth > 0);
    return 0;
}

/* The key of a mangled name ("_ZN2ns1C3barEl": "ns::C::bar"); 0, or -1. */
static int gen_cxx_mangled_key(const char *m, char *out, size_t cap)
{
    size_t i = 2, len = 0, last = 0, last_len = 0; /* the last component, for C1/D1 */
    int nested, n = 0;
    out[0] = '\0';
    if (strncmp(m, "_Z", 2) != 0 || strchr(m, '.')) /* a clone (.constprop.0): local */
        return -1;
    if (m[i] == 'L')
        i++;
    nested = m[i] == 'N';
    if (nested)
        for (i++; m[i] == 'r' || m[i] == 'V' || m[i] == 'K' || m[i] == 'R' || m[i] == 'O'; i++)
            ;
    for (;;) {
        char c = m[i];
        const char *add = NULL, *op;
        size_t alen = 0;
        if (nested && c == 'E')
            break;
        if (n && !nested && c != 'I' && !(n == 1 && strcmp(out, "std") == 0))
            break; /* the parameters (_ZSt3maxImE...: std::max first) */
        if (c >= '1' && c <= '9') {
            size_t l = 0;
            while (m[i] >= '0' && m[i] <= '9')
                l = l * 10 + (size_t)(m[i++] - '0');
            if (strlen(m + i) < l)
                return -1;
            add = m + i;
            alen = l;
            i += l;
            if (alen >= 10 && memcmp(add, "_GLOBAL__N", 10) == 0)
                add = "{anonymous}", alen = 11;
        } else if (c == 'S' && m[i + 1] == 't') {
            add = "std", alen = 3, i += 2;
        } else if (c == 'S' && m[i + 1] && strchr("absiod", m[i + 1])) {
            static const char *const abbr[6] = {"std::allocator",     "std::basic_string",
                                                "std::basic_string",  "std::basic_istream",
                                                "std::basic_ostream", "std::basic_iostream"};
            add = abbr[strchr("absiod", m[i + 1]) - "absiod"];
            alen = strlen(add);
            i += 2;
        } else if (c == 'I') {
            if (gen_skip_template_args(m, &i))
                return -1;
            continue;
        } else if (c == 'L') {
            i++;
            continue;
        } else if ((c == 'C' || c == 'D') && n && m[i + 1] >= '0' && m[i + 1] <= '5') {
            char cls[1024];
            if (!last_len || last_len >= sizeof cls)
                return -1;
            memcpy(cls, out + last, last_len); /* the class: A::A, A::~A */
            if (gen_key_put(out, cap, &len, c == 'D' ? "::~" : "::", c == 'D' ? 3 : 2) ||
                gen_key_put(out, cap, &len, cls, last_len))
                return -1;
            i += 2;
            n++;
            continue;
        } else if (c >= 'a' && c <= 'z' && m[i + 1] && (op = gen_cxx_operator(m + i)) != NULL) {
            if ((n && gen_key_put(out, cap, &len, "::", 2)) ||
                gen_key_put(out, cap, &len, "operator", 8) ||
                gen_key_put(out, cap, &len, op, strlen(op)))
                return -1;
            i += 2;
            n++;
            last_len = 0;
            continue;
        } else {
            return -1; /* a substitution, a local name, a conversion operator, ... */
        }
        if ((n && gen_key_put(out, cap, &len, "::", 2)))
            return -1;
        last = len;
        if (gen_key_put(out, cap, &len, add, alen))
            return -1;
        if (alen > 5 && memcmp(add, "std::", 5) == 0)
            last += 5; /* Sa: the class is "allocator" */
        last_len = len - last;
        n++;
    }
    return n ? 0 : -1;
}

/* The key of a display name ("static long int ns::C::bar(long int)":
   "ns::C::bar"); 0, or -1. */
static int gen_cxx_display_key(const char *name, char *out, size_t cap)
{
    char buf[1024];
    size_t n, e, start, k, len = 0, opos;
    const char *with = strstr(name, " [with ");
    int depth;
    n = with ? (size_t)(with - name) : strlen(name);
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, name, n);
    buf[n] = '\0';
    for (;;) { /* qualifiers after the parameters */
        static const char *const q[] = {" const", " volatile", " &&", " &", " noexcept"};
        size_t j;
        for (j = 0; j < sizeof q / sizeof q[0]; j++)
            if (n >= strlen(q[j]) && strcmp(buf + n - strlen(q[j]), q[j]) == 0) {
                n -= strlen(q[j]);
                buf[n] = '\0';
                break;
            }
        if (j == sizeof q / sizeof q[0])
            break;
    }
    if (!n || buf[n - 1] != ')')
        return -1;
    for (e = n, depth = 0; e > 0; e--) { /* the '(' of the parameters */
        depth += buf[e - 1] == ')' ? 1 : buf[e - 1] == '(' ? -1 : 0;
        if (depth == 0)
            break;
    }
    if (e == 0)
        return -1;
    e--; /* buf[0..e): return type and qualified name */
    opos = e;
    for (k = 0; k + 8 <= e; k++) /* "operator" as a word: its symbol holds '<' and '>' */
        if (memcmp(buf + k, "operator", 8) == 0 &&
            (k == 0 || buf[k - 1] == ':' || buf[k - 1] == ' '))
            opos = k;
    for (start = opos, depth = 0; start > 0; start--) { /* the name's first byte */
        char c = buf[start - 1];
        if (c == '>')
            depth++;
        else if (c == '<' && depth > 0)
            depth--;
        else if (c == ' ' && depth == 0)
            break;
    }
    for (k = start, depth = 0; k < opos; k++) { /* without template arguments */
        if (buf[k] == '<')
            depth++;
        else if (buf[k] == '>' && depth > 0)
            depth--;
        else if (depth == 0 && gen_key_put(out, cap, &len, buf + k, 1))
            return -1;
    }
    for (k = opos; k < e; k++) /* operator and its symbol, without blanks */
        if (buf[k] != ' ' && gen_key_put(out, cap, &len, buf + k, 1))
            return -1;
    return len ? 0 : -1;
}

/* The map's functions' keys (NULL where a name has none), built at the
   first C++ name of a .su file. */
typedef struct gen_cxx_keys {
    char **key;
    size_t n;
} gen_cxx_keys;

static int gen_cxx_keys_build(gen_cxx_keys *K, const ctxprof_icpp_map *map)
{
    size_t f;
    char buf[1024];
    if (K->key)
        return 0;
    if (!(K->key = (char **)calloc(map->funcs + 1, sizeof *K->key)))
        return -1;
    K->n = map->funcs;
    for (f = 0; f < map->funcs; f++) {
        const char *name = ctxprof_icpp_map_func_name(map, (uint32_t)f);
        if (name && gen_cxx_mangled_key(name, buf, sizeof buf) == 0 && !(K->key[f] = strdup(buf)))
            return -1;
    }
    return 0;
}

static void gen_cxx_keys_free(gen_cxx_keys *K)
{
    size_t f;
    for (f = 0; K->key && f < K->n; f++)
        free(K->key[f]);
    free(K->key);
    K->key = NULL;
}

/* Records a frame size for the map's function name (the largest wins:
   a static name can be in several files). */
static void gen_frame_note(const ctxprof_icpp_map *map, uint64_t *frames, const char *name,
                           uint64_t frame)
{
    long f = name && frame ? ctxprof_icpp_map_func(map, name) : -1;
    if (f >= 0 && frame > frames[f])
        frames[f] = frame;
}

/* The kinds of stack usage gcc writes: static, dynamic, bounded or
   "dynamic,bounded". */
static int gen_su_kind(const char *kind)
{
    return strcmp(kind, "static") == 0 || strcmp(kind, "dynamic") == 0 ||
           strcmp(kind, "bounded") == 0 || strncmp(kind, "dynamic,", 8) == 0;
}

static int gen_su_bad(const char *path, unsigned line)
{
    fprintf(stderr,
            "%s:%u: error: not a frame size line (FILE:LINE:COL:NAME BYTES "
            "static|dynamic|bounded, as gcc -fstack-usage writes; or a gcc .ci "
            "or ctxprof-callgraph file)\n",
            path, line);
    return GEN_EXIT_INPUT;
}

/* One .su line as gcc writes it, "FILE:LINE:COL:NAME<TAB>BYTES<TAB>KIND":
   the name follows the first ":LINE:COL:" (a C++ name holds "::" and
   blanks: "cx.cpp:1:5:int foo(int)"); a C++ display name (one with a '(')
   goes to the map's functions of its key (see above). Returns 0, or the
   exit status after printing the error. */
static int gen_su_line(const char *path, unsigned line, char *s, const ctxprof_icpp_map *map,
                       uint64_t *frames, gen_cxx_keys *K)
{
    char *t1 = strchr(s, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL, *name = NULL, *kind, *p;
    char key[1024];
    uint64_t frame;
    size_t f, n;
    if (!t2)
        return gen_su_bad(path, line);
    *t1 = *t2 = '\0';
    kind = t2 + 1;
    for (n = strlen(kind); n > 0 && (kind[n - 1] == ' ' || kind[n - 1] == '\t'); n--)
        kind[n - 1] = '\0';
    for (p = strchr(s, ':'); p && !name; p = strchr(p + 1, ':')) {
        char *q = p + 1;
        if (*q < '0' || *q > '9')
            continue;
        while (*q >= '0' && *q <= '9')
            q++;
        if (*q != ':' || q[1] < '0' || q[1] > '9')
            continue;
        for (q++; *q >= '0' && *q <= '9'; q++)
            ;
        if (*q == ':')
            name = q + 1;
    }
    if (!name || !*name || !gen_su_kind(kind))
        return gen_su_bad(path, line);
    if (ctxprof__parse_u64(t1 + 1, &frame) != 0) {
        fprintf(stderr, "%s:%u: error: bad frame size '%s'\n", path, line, t1 + 1);
        return GEN_EXIT_INPUT;
    }
    if (!strchr(name, '(')) {
        gen_frame_note(map, frames, name, frame);
        return 0;
    }
    if (gen_cxx_display_key(name, key, sizeof key) != 0)
        return 0;                            /* a lambda, a conversion operator: no frame */
    gen_frame_note(map, frames, key, frame); /* main, extern "C": the symbol is the name */
    if (gen_cxx_keys_build(K, map)) {
        fprintf(stderr, "%s: error: out of memory\n", gen_prog);
        return GEN_EXIT_USAGE;
    }
    for (f = 0; f < K->n; f++)
        if (K->key[f] && strcmp(K->key[f], key) == 0 && frame > frames[f])
            frames[f] = frame;
    return 0;
}

/* Frame sizes from a .su file ("file.c:12:5:name<TAB>48<TAB>static"), a
   gcc .ci file ("N bytes (static)" in a node's label; a static function
   "file.c:name" is the map's "name") or a ctxprof-callgraph file ("func
   NAME frame=BYTES") into frames[] (one per map function). Returns 0, or
   the exit status after printing the error. */
static int gen_frames_read(const char *path, const ctxprof_icpp_map *map, uint64_t *frames)
{
    char *buf;
    size_t len;
    ctxprof_error err;
    ctxprof__lines L;
    gen_cxx_keys keys = {NULL, 0};
    int graph = -1; /* the format, from the first line */
    if (ctxprof__read_file(path, &buf, &len, NULL, &err)) {
        gen_error(ctxprof_error_message(&err));
        return err.status == CTXPROF_ERR_NOMEM || err.status == CTXPROF_ERR_SYS ? GEN_EXIT_USAGE
                                                                                : GEN_EXIT_INPUT;
    }
    if (gen_is_vcg(buf, len)) {
        ctxprof_graph g;
        size_t v;
        int rc;
        free(buf);
        memset(&g, 0, sizeof g);
        if (ctxprof_graph_init(&g, NULL) != CTXPROF_OK) {
            fprintf(stderr, "%s: error: out of memory\n", gen_prog);
            return GEN_EXIT_USAGE;
        }
        rc = gen_load_one(&g, path);
        for (v = 0; rc == 0 && v < g.n_nodes; v++) {
            const char *name = g.nodes[v].name, *c = strrchr(name, ':');
            gen_frame_note(map, frames, c && c[1] ? c + 1 : name, g.nodes[v].frame);
        }
        ctxprof_graph_deinit(&g);
        return rc;
    }
    ctxprof__lines_init(&L, buf, len, path);
    while (ctxprof__lines_next(&L)) {
        char *a, *b, *name = NULL, *tab = strchr(L.cur, '\t');
        uint64_t frame = 0;
        if (graph != 1 && tab && strncmp(L.cur, "ctxprof-callgraph", 17) != 0) {
            /* a .su line as gcc writes it: tabs between the fields, as a
               C++ name has blanks ("int foo(int)") */
            int rc = gen_su_line(path, L.line, L.cur, map, frames, &keys);
            graph = 0;
            if (rc) {
                free(buf);
                gen_cxx_keys_free(&keys);
                return rc;
            }
            continue;
        }
        a = ctxprof__lines_tok(&L);
        b = ctxprof__lines_tok(&L);
        if (graph < 0) {
            graph = a && strcmp(a, "ctxprof-callgraph") == 0;
            if (graph)
                continue;
        }
        if (graph && a && strcmp(a, "func") == 0 && b) {
            char *f;
            name = b;
            while ((f = ctxprof__lines_tok(&L)) != NULL)
                if (strncmp(f, "frame=", 6) == 0 && ctxprof__parse_u64(f + 6, &frame) != 0) {
                    fprintf(stderr, "%s:%u: error: bad frame size '%s'\n", path, L.line, f);
                    free(buf);
                    gen_cxx_keys_free(&keys);
                    return GEN_EXIT_INPUT;
                }
        } else if (!graph) { /* .su: name after the last ':' */
            char *kind = ctxprof__lines_tok(&L);
            if (!a || !b || !strchr(a, ':') || !kind || !gen_su_kind(kind)) {
                free(buf);
                gen_cxx_keys_free(&keys);
                return gen_su_bad(path, L.line);
            }
            name = strrchr(a, ':') + 1;
            if (ctxprof__parse_u64(b, &frame) != 0) {
                fprintf(stderr, "%s:%u: error: bad frame size '%s'\n", path, L.line, b);
                free(buf);
                gen_cxx_keys_free(&keys);
                return GEN_EXIT_INPUT;
            }
        } else {
            continue; /* other call-graph lines */
        }
        gen_frame_note(map, frames, name, frame);
    }
    free(buf);
    gen_cxx_keys_free(&keys);
    return 0;
}

/* ctxprof-gen pad: frame padding from a path map (ICPP). */
static int cmd_pad(int argc, char **argv)
{
    gen_opts o;
    ctxprof_icpp_map map;
    ctxprof_icpp_pads pads;
    ctxprof_error err;
    const char *in;
    size_t max_pairs, need, known = 0, f;
    char *text = NULL, *header = NULL;
    size_t hlen = 0;
    uint64_t *fsize = NULL;
    double worst = 1; /* nothing padded: no frame grows */
    int rc = 0;
    FILE *rep = stdout;
    gen_out go;
    int have_out = 0; /* go holds the table's temporary file */
    memset(&o, 0, sizeof o);
    memset(&map, 0, sizeof map);
    o.cmd = "pad";
    o.input_kind = "path map";
    if ((rc = gen_parse(argc, argv,
                        "o search max-growth max-units budget seed pairs wrap", &o)) != 0)
        return rc < 0 ? 0 : rc;
    if ((rc = gen_out_is_input(o.out, o.inputs, o.n_inputs)) != 0)
        return rc;
    o.pad.seed = o.seed;
    max_pairs = o.pad.max_pairs;
    in = o.inputs[0]; /* then the FRAMES files */
    if (ctxprof_icpp_map_load(&map, in, &err)) {
        gen_error(ctxprof_error_message(&err));
        return err.status == CTXPROF_ERR_SYS ? 2 : 1;
    }
    if (map.paths == 0) { /* nothing to pad: an empty or failed training run */
        fprintf(stderr, "%s: error: no paths (did the training run enter an instrumented "
                        "function?)\n", in);
        ctxprof_icpp_map_deinit(&map);
        return 1;
    }
    if (ctxprof_icpp_pad_compute(&map, &o.pad, &pads, &err)) {
        gen_error(ctxprof_error_message(&err));
        ctxprof_icpp_map_deinit(&map);
        return 2;
    }
    if (o.out && strcmp(o.out, "-") == 0)
        rep = stderr;
    /* everything that can fail comes first: a failed run prints no report */
    if (o.n_inputs > 1) {
        if (!(fsize = (uint64_t *)calloc(map.funcs + 1, sizeof *fsize))) {
            fprintf(stderr, "ctxprof-gen pad: out of memory\n");
            rc = 2;
            goto done;
        }
        for (f = 1; f < o.n_inputs; f++)
            if ((rc = gen_frames_read(o.inputs[f], &map, fsize)) != 0)
                goto done;
        for (f = 0; f < map.funcs; f++) {
            unsigned u;
            if (!fsize[f])
                continue;
            known++;
            u = ctxprof_icpp_pads_units(&pads, ctxprof_icpp_map_func_name(&map, (uint32_t)f));
            if (u && (double)(fsize[f] + 16u * u) / (double)fsize[f] > worst)
                worst = (double)(fsize[f] + 16u * u) / (double)fsize[f];
        }
    }
    need = ctxprof_icpp_pads_report_text(&pads, max_pairs, NULL, 0);
    text = (char *)malloc(need + 1);
    if (!text) {
        fprintf(stderr, "ctxprof-gen pad: out of memory\n");
        rc = 2;
        goto done;
    }
    ctxprof_icpp_pads_report_text(&pads, max_pairs, text, need + 1);
    /* The table is written and synced first, then the report, then the
       table renamed into place: a report that cannot be written (a full
       disk) leaves the old table, and the rename, which is all that can
       fail after the report, is a metadata update. */
    if (o.out) {
        if (ctxprof_icpp_pads_emit(&pads, in, o.out, &header, &hlen, &err)) {
            gen_error(ctxprof_error_message(&err));
            rc = 2;
            goto done;
        }
        if ((rc = gen_out_open(&go, o.out)) != 0)
            goto done;
        have_out = 1;
        gen_out_write(&go, header, hlen);
        if (gen_out_sync(&go)) {
            rc = gen_out_close(&go, 0);
            have_out = 0;
            goto done;
        }
    }
    fprintf(rep, "functions=%zu\n", map.funcs);
    if (o.n_inputs > 1)
        fprintf(rep, "frames_known=%zu\nmax_frame_growth=%.4f\n", known, worst);
    errno = 0;
    fputs(text, rep);
    if (fflush(rep) != 0 || ferror(rep)) {
        int e = errno ? errno : EIO;
        fprintf(stderr, "%s: error: writing the report to %s: %s%s\n", gen_prog,
                rep == stdout ? "standard output" : "standard error", strerror(e),
                have_out ? "; the table was not written" : "");
        rc = 2;
    }
    if (have_out) {
        int rc2 = gen_out_close(&go, rc == 0);
        rc = rc ? rc : rc2;
        have_out = 0;
    }
done:
    if (have_out)
        gen_out_close(&go, 0);
    free(fsize);
    free(text);
    free(header);
    ctxprof_icpp_pads_deinit(&pads);
    ctxprof_icpp_map_deinit(&map);
    return rc;
}

/* The help of a subcommand ("": all of it). */
static void gen_show_help(const char *cmd)
{
    if (strcmp(cmd, "pad") == 0) {
        fputs(gen_help_pad, stdout);
        return;
    }
    fputs(gen_help_usage, stdout);
    if (!*cmd)
        fputs(gen_help, stdout);
    else
        fputs("\n", stdout);
    fputs(gen_help_cmds, stdout);
    if (!*cmd) {
        fputs("\n", stdout);
        fputs(gen_help_pad, stdout);
    }
}

static int cmd_help(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    gen_show_help("");
    return 0;
}

static int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("ctxprof-gen %s\n", CTXPROF_VERSION_STRING);
    return 0;
}

/* Subcommands: the first argument picks one; anything else is cmd_emit's. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv); /* gets the arguments after the name */
} ctxprof_gen_cmds[] = {
    {"stats", cmd_stats}, {"check", cmd_check},         {"pad", cmd_pad},
    {"--help", cmd_help}, {"callgraph", cmd_callgraph}, {"-h", cmd_help},
    {"help", cmd_help},   {"--version", cmd_version},
};

static int gen_run(int argc, char **argv)
{
    size_t i;
    if (argc < 2)
        return gen_usage_error("%s", "no call graph given");
    for (i = 0; i < sizeof ctxprof_gen_cmds / sizeof ctxprof_gen_cmds[0]; i++)
        if (strcmp(argv[1], ctxprof_gen_cmds[i].name) == 0)
            return ctxprof_gen_cmds[i].run(argc - 2, argv + 2);
    return cmd_emit(argc - 1, argv + 1);
}

#ifndef CTXPROF_GEN_NO_MAIN /* tests/fuzz/fuzz_gen_tool.c: the functions only */
/* Output lost to a full disk would pass for a result (stats, check's
   verdict, the help): a failed write of standard output makes the status 2
   (the header, a graph or a table written to "-" say so themselves). */
int main(int argc, char **argv)
{
    int rc, bad, e;
    errno = 0;
    rc = gen_run(argc, argv);
    bad = ferror(stdout);
    e = bad ? errno ? errno : EIO : 0; /* a failed write of the buffer set errno last */
    errno = 0;
    if (fflush(stdout) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (fclose(stdout) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad && rc != GEN_EXIT_USAGE) { /* a 2 has said why already */
        fprintf(stderr, "%s: error: writing standard output: %s\n", gen_prog, strerror(e));
        return GEN_EXIT_USAGE;
    }
    return bad ? GEN_EXIT_USAGE : rc;
}
#endif
