/* libFuzzer target: ICPP frame padding (ctxprof_icpp_pad_compute) on
   small path maps (at most 64 paths). The input is a ctxprof-paths map; an
   optional first comment line "#G S B U I T P" (decimal numbers, any
   separators) sets the growth cap, seed, budget, largest pad, random-search
   iterations, target and pair counts (without it they come from a hash of
   the input); a cap below 1 and pads beyond 65536 units are refused.
   Each search - none, the paper's random search, ours, ours with
   call-site wraps - runs under those, and everything it reports is
   recomputed by a slow reference from the map's paths and the public
   accessors: each path's padded height (its height + 16 x the pads of the
   source functions of all its nodes, leaf and root included, + 16 x the
   wraps of its edges below the root), the precise and <= 2 shares, the
   growth and the cap, the inseparable share and pair counts (same leaf,
   height and multiset of source functions; identical edges when the edge
   multisets are equal too), the padded and wrapped counts, the unit
   maximum; precise_after is at least precise_before, at most 1 -
   inseparable, at most precise_bound_capped, and on maps small enough for
   brute force at most the best pad vector within the cap, which in turn is
   at most the bound. The same desc gives the same result twice; the report
   text and the emitted header say exactly the values checked. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_PATHS 64

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "fuzz_pad: check failed at line %d: %s\n", __LINE__, #c);              \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* ---- the reference model of a map ---------------------------------------- */

typedef struct ref_map {
    size_t np, nv, ne;
    char **vars;       /* source function names (up to the first '.' after the first char) */
    uint32_t *fvar;    /* map function -> var */
    uint64_t *h0, maxh;
    uint32_t *leaf;    /* map function of the path's last node */
    size_t *len;
    uint32_t **pv;     /* path -> vars of its nodes, root first */
    uint32_t *mul;     /* np x nv multiplicities */
    uint32_t *ecaller, *ecallee; /* distinct edges below the root (var ids) */
} ref_map;

static char *dup_n(const char *s, size_t n)
{
    char *p = (char *)malloc(n + 1);
    CHECK(p);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static uint32_t ref_var(ref_map *r, const char *name)
{
    const char *dot = name[0] ? strchr(name + 1, '.') : NULL;
    size_t n = dot ? (size_t)(dot - name) : strlen(name), v;
    for (v = 0; v < r->nv; v++)
        if (strlen(r->vars[v]) == n && memcmp(r->vars[v], name, n) == 0)
            return (uint32_t)v;
    r->vars[r->nv] = dup_n(name, n);
    return (uint32_t)r->nv++;
}

static void ref_edge(ref_map *r, uint32_t a, uint32_t b)
{
    size_t e;
    for (e = 0; e < r->ne; e++)
        if (r->ecaller[e] == a && r->ecallee[e] == b)
            return;
    r->ecaller[r->ne] = a;
    r->ecallee[r->ne] = b;
    r->ne++;
}

static void ref_build(ref_map *r, const ctxprof_icpp_map *m)
{
    size_t p, f, k, total = 0;
    memset(r, 0, sizeof *r);
    r->np = m->paths;
    r->vars = (char **)calloc(m->funcs + 1, sizeof *r->vars);
    r->fvar = (uint32_t *)calloc(m->funcs + 1, sizeof *r->fvar);
    r->h0 = (uint64_t *)calloc(r->np + 1, sizeof *r->h0);
    r->leaf = (uint32_t *)calloc(r->np + 1, sizeof *r->leaf);
    r->len = (size_t *)calloc(r->np + 1, sizeof *r->len);
    r->pv = (uint32_t **)calloc(r->np + 1, sizeof *r->pv);
    CHECK(r->vars && r->fvar && r->h0 && r->leaf && r->len && r->pv);
    for (f = 0; f < m->funcs; f++) {
        const char *nm = ctxprof_icpp_map_func_name(m, (uint32_t)f);
        CHECK(nm);
        CHECK(ctxprof_icpp_map_func(m, nm) == (long)f);
        r->fvar[f] = ref_var(r, nm);
    }
    for (p = 0; p < r->np; p++) {
        ctxprof_icpp_path_info pi;
        uint32_t *fs;
        size_t n;
        CHECK(ctxprof_icpp_map_path(m, (uint32_t)p, &pi) == CTXPROF_OK);
        n = ctxprof_icpp_map_path_funcs(m, (uint32_t)p, NULL, 0);
        CHECK(n == pi.len && n > 0);
        fs = (uint32_t *)calloc(n, sizeof *fs);
        CHECK(fs);
        CHECK(ctxprof_icpp_map_path_funcs(m, (uint32_t)p, fs, n) == n);
        CHECK(fs[n - 1] == pi.leaf);
        r->h0[p] = pi.height;
        r->leaf[p] = pi.leaf;
        r->len[p] = n;
        r->pv[p] = (uint32_t *)calloc(n, sizeof **r->pv);
        CHECK(r->pv[p]);
        for (k = 0; k < n; k++)
            r->pv[p][k] = r->fvar[fs[k]];
        if (pi.height > r->maxh)
            r->maxh = pi.height;
        total += n;
        free(fs);
    }
    r->mul = (uint32_t *)calloc(r->np * r->nv + 1, sizeof *r->mul);
    r->ecaller = (uint32_t *)calloc(total + 1, sizeof *r->ecaller);
    r->ecallee = (uint32_t *)calloc(total + 1, sizeof *r->ecallee);
    CHECK(r->mul && r->ecaller && r->ecallee);
    for (p = 0; p < r->np; p++)
        for (k = 0; k < r->len[p]; k++) {
            r->mul[p * r->nv + r->pv[p][k]]++;
            if (k)
                ref_edge(r, r->pv[p][k - 1], r->pv[p][k]);
        }
}

static void ref_free(ref_map *r)
{
    size_t i;
    for (i = 0; i < r->nv; i++)
        free(r->vars[i]);
    for (i = 0; i < r->np; i++)
        free(r->pv[i]);
    free(r->vars);
    free(r->fvar);
    free(r->h0);
    free(r->leaf);
    free(r->len);
    free(r->pv);
    free(r->mul);
    free(r->ecaller);
    free(r->ecallee);
}

/* Paths alone on their (leaf, height), and those with at most one other. */
static void ref_count(const ref_map *r, const uint64_t *h, size_t *precise, size_t *le2)
{
    size_t p, q;
    *precise = *le2 = 0;
    for (p = 0; p < r->np; p++) {
        size_t same = 0;
        for (q = 0; q < r->np; q++)
            same += q != p && r->leaf[q] == r->leaf[p] && h[q] == h[p];
        *precise += same == 0;
        *le2 += same <= 1;
    }
}

/* Same multiset of edges (root edge included), compared exactly. */
static int same_edges(const ref_map *r, size_t a, size_t b)
{
    size_t i, j, n = r->len[a];
    unsigned char *used;
    int ok = 1;
    if (r->len[b] != n)
        return 0;
    used = (unsigned char *)calloc(n + 1, 1);
    CHECK(used);
    for (i = 0; i < n && ok; i++) {
        uint32_t ca = i ? r->pv[a][i - 1] : UINT32_MAX, ea = r->pv[a][i];
        for (j = 0; j < n; j++) {
            uint32_t cb = j ? r->pv[b][j - 1] : UINT32_MAX, eb = r->pv[b][j];
            if (!used[j] && ca == cb && ea == eb) {
                used[j] = 1;
                break;
            }
        }
        ok = j < n;
    }
    free(used);
    return ok;
}

/* Inseparable paths (groups of >= 2 with the same leaf, unpadded height and
   variable multiset) and their pairs, split by identical edges. */
static void ref_inseparable(const ref_map *r, size_t *insep, size_t *perm, size_t *ident)
{
    size_t p, q;
    *insep = *perm = *ident = 0;
    for (p = 0; p < r->np; p++) {
        int twin = 0;
        for (q = 0; q < r->np; q++) {
            int same;
            if (q == p || r->leaf[q] != r->leaf[p] || r->h0[q] != r->h0[p] ||
                memcmp(r->mul + p * r->nv, r->mul + q * r->nv, r->nv * sizeof *r->mul) != 0)
                continue;
            twin = 1;
            if (q < p)
                continue;
            same = same_edges(r, p, q);
            *ident += same;
            *perm += !same;
        }
        *insep += twin;
    }
}

/* The most precise paths over all pad vectors (each 0..mu) within limit,
   by brute force; SIZE_MAX when there are too many vectors. */
static size_t ref_best(const ref_map *r, unsigned mu, uint64_t limit)
{
    uint64_t combos = 1, code, *h;
    size_t v, p, best = 0;
    unsigned *x;
    for (v = 0; v < r->nv; v++) {
        combos *= mu + 1u;
        if (combos > 2048)
            return SIZE_MAX;
    }
    h = (uint64_t *)calloc(r->np + 1, sizeof *h);
    x = (unsigned *)calloc(r->nv + 1, sizeof *x);
    CHECK(h && x);
    for (code = 0; code < combos; code++) {
        uint64_t c = code;
        size_t precise, le2;
        int fits = 1;
        for (v = 0; v < r->nv; v++) {
            x[v] = (unsigned)(c % (mu + 1u));
            c /= mu + 1u;
        }
        for (p = 0; p < r->np && fits; p++) {
            h[p] = r->h0[p];
            for (v = 0; v < r->nv; v++)
                h[p] += 16u * (uint64_t)x[v] * r->mul[p * r->nv + v];
            fits = h[p] <= limit;
        }
        if (!fits)
            continue;
        ref_count(r, h, &precise, &le2);
        if (precise > best)
            best = precise;
    }
    free(h);
    free(x);
    return best;
}

/* ---- parameters ----------------------------------------------------------- */

typedef struct params {
    uint64_t g, s, b, u, i, t, p;
} params;

static uint64_t hash_bytes(const uint8_t *d, size_t n)
{
    uint64_t h = 1469598103934665603u;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ d[i]) * 1099511628211u;
    return h;
}

static void get_params(const uint8_t *data, size_t size, params *pr)
{
    uint64_t h = hash_bytes(data, size), v[7];
    size_t i = 1, n = 0;
    v[0] = h & 0xffff;
    v[1] = h >> 16;
    v[2] = (h >> 20) & 0xffffff;
    v[3] = (h >> 30) & 0xff;
    v[4] = (h >> 40) & 0x3ff;
    v[5] = (h >> 50) & 0xff;
    v[6] = (h >> 56) & 0xff;
    if (size && data[0] == '#') {
        while (i < size && data[i] != '\n' && n < 7) {
            uint64_t x = 0;
            int any = 0;
            while (i < size && data[i] != '\n' && (data[i] < '0' || data[i] > '9'))
                i++;
            while (i < size && data[i] >= '0' && data[i] <= '9') {
                x = x * 10 + (uint64_t)(data[i++] - '0');
                x &= 0xffffffffffffu;
                any = 1;
            }
            if (any)
                v[n++] = x;
        }
    }
    pr->g = v[0];
    pr->s = v[1];
    pr->b = v[2];
    pr->u = v[3];
    pr->i = v[4];
    pr->t = v[5];
    pr->p = v[6];
}

static double growth_of(uint64_t g)
{
    switch (g % 8) {
    case 0:
        return 0; /* the search's default */
    case 1:
        return 1.0;
    case 2:
        return INFINITY;
    case 3:
        return 1e6;
    case 4:
        return 1.05;
    case 5:
        return 1.2;
    case 6:
        return 1.5;
    default:
        return 1 + (double)(g / 8 % 400) / 100;
    }
}

/* ---- checks of one run ---------------------------------------------------- */

static size_t count_str(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (; (hay = strstr(hay, needle)) != NULL; hay += k)
        n++;
    return n;
}

/* The report text: the documented keys in order, each with the report's
   value to its printed precision (3 or 4 decimals, integers exact), then
   moves, seconds and the pair lines. */
static void check_text(const ctxprof_icpp_pads *pads, const ctxprof_icpp_pad_report *rep,
                       int wrapped, size_t text_pairs, size_t npairs, size_t perm)
{
    const struct {
        const char *key;
        double v;
    } want[] = {{"paths", (double)rep->paths},
                {"precise_before", rep->precise_before},
                {"precise_after", rep->precise_after},
                {"ambiguity_le2_after", rep->ambiguity_le2_after},
                {"max_stack_growth", rep->max_stack_growth},
                {"inseparable", rep->inseparable},
                {"precise_bound", rep->precise_bound},
                {"precise_bound_capped", rep->precise_bound_capped},
                {"functions_padded", (double)rep->functions_padded},
                {"max_height_before", (double)rep->max_height_before},
                {"max_height_after", (double)rep->max_height_after},
                {"pairs_permutation", (double)rep->pairs_permutation},
                {"pairs_identical_edges", (double)rep->pairs_identical_edges},
                {"walk_depth_max", (double)rep->walk_depth_max},
                {"walk_depth_mean", rep->walk_depth_mean},
                {"walk_reads_max", (double)rep->walk_reads_max},
                {"walk_reads_mean", rep->walk_reads_mean},
                {"walk_separable", rep->walk_separable},
                {"precise_after_wrap", rep->precise_after_wrap}, /* these two if wrapped */
                {"sites_wrapped", (double)rep->sites_wrapped},
                {"moves", (double)rep->moves}};
    size_t len = ctxprof_icpp_pads_report_text(pads, text_pairs, NULL, 0), k, lines;
    char *text = (char *)malloc(len + 1), small[16], *at, *end;
    CHECK(text && len > 0);
    CHECK(ctxprof_icpp_pads_report_text(pads, text_pairs, text, len + 1) == len);
    CHECK(strlen(text) == len);
    CHECK(ctxprof_icpp_pads_report_text(pads, text_pairs, small, sizeof small) == len);
    CHECK(strlen(small) == sizeof small - 1 && memcmp(small, text, sizeof small - 1) == 0);
    at = text;
    for (k = 0; k < sizeof want / sizeof want[0]; k++) {
        size_t n = strlen(want[k].key);
        double d;
        if (!wrapped && (strcmp(want[k].key, "precise_after_wrap") == 0 ||
                         strcmp(want[k].key, "sites_wrapped") == 0))
            continue;
        CHECK(strncmp(at, want[k].key, n) == 0 && at[n] == '=');
        d = strtod(at + n + 1, &end) - want[k].v;
        CHECK(*end == '\n' && d <= 5.0001e-4 && d >= -5.0001e-4);
        at = end + 1;
    }
    CHECK(strncmp(at, "seconds=", 8) == 0);
    at = strchr(at, '\n');
    CHECK(at);
    at++;
    lines = text_pairs < npairs ? text_pairs : npairs;
    for (k = 0; k < lines; k++) {
        const char *kind = k < perm ? "# pair permutation (" : "# pair identical-edges (";
        CHECK(strncmp(at, kind, strlen(kind)) == 0);
        at = strchr(at, '\n');
        CHECK(at);
        at++;
    }
    CHECK(*at == '\0');
    free(text);
}

/* The emitted header: its summary, one line per padded (and wrapped)
   identifier with its units, comments closed. */
static void check_emit(const ctxprof_icpp_pads *pads, const ref_map *r, const uint32_t *units,
                       const uint32_t *wraps)
{
    char *hdr = NULL;
    size_t hlen = 0, i, n = 0, skipped = 0;
    ctxprof_error err;
    ctxprof__icpp_named *list = (ctxprof__icpp_named *)calloc(r->nv + r->ne + 1, sizeof *list);
    ctxprof__sbuf want;
    const char *s;
    int in_comment = 0;
    CHECK(list);
    memset(&want, 0, sizeof want);
    if (ctxprof_icpp_pads_emit(pads, "in.paths", "out/pads.h", &hdr, &hlen, &err) != CTXPROF_OK) {
        CHECK(err.status == CTXPROF_ERR_NOMEM);
        free(list);
        return;
    }
    CHECK(hdr && strlen(hdr) == hlen);
    ctxprof__sbuf_printf(&want,
                         "   paths=%zu precise_before=%.4f precise_after=%.4f "
                         "max_stack_growth=%.4f inseparable=%.4f\n",
                         pads->report.paths, pads->report.precise_before,
                         pads->report.precise_after, pads->report.max_stack_growth,
                         pads->report.inseparable);
    CHECK(strstr(hdr, want.p) != NULL);
    CHECK(strstr(hdr, "#ifndef CTXPROF_GEN_PADS_H\n#define CTXPROF_GEN_PADS_H\n") != NULL);
    want.len = 0;
    for (i = 0; i < r->nv; i++)
        if (units[i]) {
            if (!ctxprof__icpp_is_ident(r->vars[i])) {
                skipped++;
                continue;
            }
            list[n].a = r->vars[i];
            list[n].b = "";
            list[n].units = units[i];
            n++;
        }
    qsort(list, n, sizeof *list, ctxprof__icpp_named_cmp);
    for (i = 0; i < n; i++)
        ctxprof__sbuf_printf(&want, "#define CTXPROF_PAD_%s ~, %u /* +%u bytes */\n", list[i].a,
                             list[i].units, 16 * list[i].units);
    CHECK(count_str(hdr, "\n#define CTXPROF_PAD_") == n);
    CHECK(n == 0 || strstr(hdr, want.p) != NULL);
    CHECK((strstr(hdr, "padded names are not C identifiers") != NULL) == (skipped != 0));
    want.len = 0;
    n = 0;
    for (i = 0; i < r->ne; i++)
        if (wraps[i] && ctxprof__icpp_is_ident(r->vars[r->ecaller[i]]) &&
            ctxprof__icpp_is_ident(r->vars[r->ecallee[i]])) {
            list[n].a = r->vars[r->ecaller[i]];
            list[n].b = r->vars[r->ecallee[i]];
            list[n].units = wraps[i];
            n++;
        }
    qsort(list, n, sizeof *list, ctxprof__icpp_named_cmp);
    for (i = 0; i < n; i++)
        ctxprof__sbuf_printf(&want, "#define CTXPROF_WRAP_%s__%s ~, %u\n", list[i].a, list[i].b,
                             list[i].units);
    CHECK(count_str(hdr, "\n#define CTXPROF_WRAP_") == n);
    CHECK(n == 0 || strstr(hdr, want.p) != NULL);
    /* comments: every one closed, none opened inside another */
    for (s = hdr; *s; s++) {
        if (s[0] == '/' && s[1] == '*') {
            CHECK(!in_comment);
            in_comment = 1;
            s++;
        } else if (s[0] == '*' && s[1] == '/') {
            CHECK(in_comment);
            in_comment = 0;
            s++;
        }
    }
    CHECK(!in_comment);
    CHECK(hlen >= 8 && strcmp(hdr + hlen - 8, "\n#endif\n") == 0);
    CHECK(!want.failed);
    ctxprof__free(want.p, NULL);
    free(list);
    free(hdr);
}

static int same_report(const ctxprof_icpp_pad_report *a, const ctxprof_icpp_pad_report *b)
{
    ctxprof_icpp_pad_report x = *a, y = *b;
    x.seconds = y.seconds = 0;
    return memcmp(&x, &y, sizeof x) == 0;
}

/* One search under desc, checked against the reference. */
static void run(const ctxprof_icpp_map *m, const ref_map *r, const ctxprof_icpp_pad_desc *desc,
                size_t text_pairs, size_t best, uint64_t best_limit, unsigned best_mu)
{
    ctxprof_icpp_pads pads, again;
    ctxprof_icpp_pad_report *rep = &pads.report;
    ctxprof_error err;
    double growth = desc->max_growth;
    unsigned mu = desc->max_units ? desc->max_units : 256;
    uint64_t limit, hmax = 0, *h = NULL, *hw = NULL;
    uint32_t *units = NULL, *wraps = NULL;
    size_t p, k, precise, le2, before, le2b, insep, perm, ident, padded = 0, wrapped = 0;
    size_t npairs, max_pairs = desc->max_pairs ? desc->max_pairs : 32;
    int wrap_ran = desc->wrap && desc->search == CTXPROF_ICPP_SEARCH_OURS;
    if (growth == 0 && desc->search == CTXPROF_ICPP_SEARCH_OURS)
        growth = 1.2;
    limit = growth > 0 && growth < 1e6 ? (uint64_t)(growth * (double)r->maxh) : UINT64_MAX;
    memset(&err, 0, sizeof err);
    if (ctxprof_icpp_pad_compute(m, desc, &pads, &err) != CTXPROF_OK) {
        CHECK(err.status == CTXPROF_ERR_NOMEM && err.detail[0]);
        return;
    }
    h = (uint64_t *)calloc(r->np + 1, sizeof *h);
    hw = (uint64_t *)calloc(r->np + 1, sizeof *hw);
    units = (uint32_t *)calloc(r->nv + 1, sizeof *units);
    wraps = (uint32_t *)calloc(r->ne + 1, sizeof *wraps);
    CHECK(h && hw && units && wraps);
    for (k = 0; k < r->nv; k++) {
        units[k] = ctxprof_icpp_pads_units(&pads, r->vars[k]);
        CHECK(units[k] <= mu);
        CHECK(desc->search != CTXPROF_ICPP_SEARCH_NONE || units[k] == 0);
        padded += units[k] > 0;
    }
    for (k = 0; k < r->ne; k++) {
        wraps[k] = ctxprof_icpp_pads_wrap_units(&pads, r->vars[r->ecaller[k]],
                                                r->vars[r->ecallee[k]]);
        CHECK(wraps[k] <= mu);
        CHECK(wrap_ran || wraps[k] == 0);
        wrapped += wraps[k] > 0;
    }
    CHECK(ctxprof_icpp_pads_units(&pads, NULL) == 0);
    for (p = 0; p < r->np; p++) {
        h[p] = r->h0[p];
        for (k = 0; k < r->len[p]; k++)
            h[p] += 16u * (uint64_t)units[r->pv[p][k]];
        hw[p] = h[p];
        for (k = 1; k < r->len[p]; k++) {
            size_t e;
            for (e = 0; e < r->ne; e++)
                if (r->ecaller[e] == r->pv[p][k - 1] && r->ecallee[e] == r->pv[p][k])
                    break;
            CHECK(e < r->ne);
            hw[p] += 16u * (uint64_t)wraps[e];
        }
        if (hw[p] > hmax)
            hmax = hw[p];
        CHECK(hw[p] <= limit); /* the cap holds (the unpadded heights are within it) */
    }
    /* the counts, from scratch */
    CHECK(rep->paths == r->np);
    CHECK(rep->max_height_before == r->maxh);
    CHECK(rep->max_height_after == hmax);
    CHECK(rep->max_stack_growth == (r->maxh ? (double)hmax / (double)r->maxh : 1));
    ref_count(r, r->h0, &before, &le2b);
    CHECK(rep->precise_before == (r->np ? (double)before / (double)r->np : 1));
    ref_count(r, h, &precise, &le2);
    CHECK(rep->precise_after == (r->np ? (double)precise / (double)r->np : 1));
    CHECK(rep->ambiguity_le2_after == (r->np ? (double)le2 / (double)r->np : 1));
    CHECK(precise >= before);
    CHECK(desc->search != CTXPROF_ICPP_SEARCH_NONE || precise == before);
    CHECK(rep->functions_padded == padded);
    if (wrap_ran) {
        size_t pw, le2w;
        ref_count(r, hw, &pw, &le2w);
        CHECK(rep->precise_after_wrap == (r->np ? (double)pw / (double)r->np : 1));
        CHECK(pw >= precise);
        CHECK(rep->sites_wrapped == wrapped);
    } else {
        CHECK(rep->precise_after_wrap == rep->precise_after);
        CHECK(rep->sites_wrapped == 0);
    }
    ref_inseparable(r, &insep, &perm, &ident);
    CHECK(rep->inseparable == (r->np ? (double)insep / (double)r->np : 0));
    CHECK(rep->precise_bound == (r->np ? (double)(r->np - insep) / (double)r->np : 1));
    CHECK(rep->pairs_permutation == perm && rep->pairs_identical_edges == ident);
    CHECK(precise + insep <= r->np);
    /* the bounds: the capped bound holds the result, the optimum */
    CHECK(rep->precise_bound_capped <= rep->precise_bound);
    CHECK(rep->precise_after <= rep->precise_bound_capped);
    CHECK(rep->precise_before <= rep->precise_bound_capped);
    if (best != SIZE_MAX && best_limit == limit && best_mu == mu) {
        CHECK(precise <= best);
        CHECK(best + insep <= r->np);
        CHECK((r->np ? (double)best / (double)r->np : 1) <= rep->precise_bound_capped);
    }
    /* the partial walks: shares and means in range */
    CHECK(rep->walk_separable >= 0 && rep->walk_separable <= 1);
    CHECK(rep->walk_depth_mean <= (double)rep->walk_depth_max);
    CHECK(rep->walk_reads_mean <= (double)rep->walk_reads_max);
    CHECK(precise < r->np || (rep->walk_separable == 1 && rep->walk_depth_max == 0));
    /* text and header */
    npairs = perm + ident < max_pairs ? perm + ident : max_pairs;
    check_text(&pads, rep, wrap_ran, text_pairs, npairs, perm);
    check_emit(&pads, r, units, wraps);
    /* deterministic */
    if (ctxprof_icpp_pad_compute(m, desc, &again, &err) == CTXPROF_OK) {
        CHECK(same_report(rep, &again.report));
        for (k = 0; k < r->nv; k++)
            CHECK(ctxprof_icpp_pads_units(&again, r->vars[k]) == units[k]);
        for (k = 0; k < r->ne; k++)
            CHECK(ctxprof_icpp_pads_wrap_units(&again, r->vars[r->ecaller[k]],
                                               r->vars[r->ecallee[k]]) == wraps[k]);
        ctxprof_icpp_pads_deinit(&again);
    }
    free(h);
    free(hw);
    free(units);
    free(wraps);
    ctxprof_icpp_pads_deinit(&pads);
    CHECK(pads.d == NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctxprof_icpp_map m;
    ctxprof_icpp_pad_desc desc;
    ctxprof_icpp_pads pads;
    ctxprof_error err;
    ref_map r;
    params pr;
    size_t best;
    unsigned mu;
    uint64_t limit;
    double growth;
    memset(&m, 0, sizeof m);
    if (ctxprof_icpp_map_parse(&m, (const char *)data, size, "fuzz", &err) != CTXPROF_OK)
        return 0;
    if (m.paths > MAX_PATHS) {
        ctxprof_icpp_map_deinit(&m);
        return 0;
    }
    get_params(data, size, &pr);
    growth = growth_of(pr.g);
    ref_build(&r, &m);
    memset(&desc, 0, sizeof desc);
    desc.max_growth = growth;
    desc.seed = pr.s;
    desc.budget = 1 + pr.b % 40000;
    desc.max_units = (unsigned)(pr.u % 70);
    desc.max_iterations = 1 + pr.i % 300;
    desc.target = (double)(pr.t % 101) / 100;
    desc.max_pairs = (size_t)(pr.p % 40);
    desc.wrap = (int)(pr.p & 1);
    /* the brute-force optimum, at the cap of the searches that set one */
    mu = desc.max_units ? desc.max_units : 256;
    limit = growth > 0 && growth < 1e6 ? (uint64_t)(growth * (double)r.maxh) : UINT64_MAX;
    best = ref_best(&r, mu, limit);
    /* bad caps are refused, the output cleared */
    {
        ctxprof_icpp_pad_desc bad = desc;
        memset(&pads, 0x5A, sizeof pads);
        bad.max_growth = pr.g & 1 ? 0.5 : NAN;
        CHECK(ctxprof_icpp_pad_compute(&m, &bad, &pads, &err) == CTXPROF_ERR_RANGE);
        CHECK(err.detail[0] && pads.d == NULL);
        bad = desc; /* as are pads beyond 65536 units (int32_t inside) */
        bad.max_units = pr.u & 2 ? 65537u + (unsigned)(pr.s % 4294901759u) : 0x80000000u;
        memset(&pads, 0x5A, sizeof pads);
        CHECK(ctxprof_icpp_pad_compute(&m, &bad, &pads, &err) == CTXPROF_ERR_RANGE);
        CHECK(err.detail[0] && pads.d == NULL);
    }
    desc.search = CTXPROF_ICPP_SEARCH_NONE;
    run(&m, &r, &desc, (size_t)(pr.p / 40 % 50), best, limit, mu);
    desc.search = CTXPROF_ICPP_SEARCH_RANDOM;
    run(&m, &r, &desc, (size_t)(pr.p / 40 % 50), best, limit, mu);
    desc.search = CTXPROF_ICPP_SEARCH_OURS;
    desc.wrap = 0;
    run(&m, &r, &desc, (size_t)(pr.p / 40 % 50), best, limit, mu);
    desc.wrap = 1;
    run(&m, &r, &desc, (size_t)(pr.p / 40 % 50), best, limit, mu);
    ref_free(&r);
    ctxprof_icpp_map_deinit(&m);
    return 0;
}
