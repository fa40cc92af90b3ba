/* libFuzzer target: the parsers that live in the tool ctxprof-gen
   (tools/ctxprof-gen.c, included without its main). The first byte picks:

   0: the C++ name keys of `ctxprof-gen pad`'s .su reader (mangled and
      display names) into heap buffers of exactly 1, a few and 1024 bytes:
      a key always fits, and one found in a small buffer is found the same
      in a larger one;
   1: the frame sizes of `ctxprof-gen pad` (a .su file, a gcc .ci file or a
      ctxprof-callgraph) for a path map (the text before a NUL, else a
      fixed map of C++ names): refused as bad input or read; every frame
      size found is a number written in the input, and reading the file
      again changes nothing;
   2: the rewriting of gcc .ci titles before the library parses them, into
      a graph holding a few nodes: the text keeps its length and its number
      of line breaks (so line numbers in messages stay right), and a graph
      that finishes writes text that reads back as the same text;
   3: the option parser on arguments split at NUL bytes: accepted options
      are within their documented ranges. */
#define CTXPROF_GEN_NO_MAIN
#include "../../tools/ctxprof-gen.c"
#include "fuzz_util.h"

#include <fcntl.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char su_path[256];
static const char fixed_map[] = "ctxprof-paths 1\n"
                                "path 5 96 main _ZN2ns1C3barEl\n"
                                "path 3 160 main _ZN1AC2Ev _ZN1AD1Ev\n"
                                "path 2 96 main _ZSt3maxImERKT_S2_S2_ _ZNSaIcEC1Ev\n"
                                "path 1 64 main _ZN2nsplERKNS_1XES2_ _Z3fooIiEvT_ foo\n";

/* The tool's messages go to standard error: silenced around a call. */
static int quiet_fd = -1, saved_fd = -1;

static void quiet(int on)
{
    if (quiet_fd < 0 && (quiet_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0)
        abort();
    fflush(stderr);
    if (on) {
        if ((saved_fd = dup(2)) < 0 || dup2(quiet_fd, 2) < 0)
            abort();
    } else if (dup2(saved_fd, 2) < 0 || close(saved_fd) != 0) {
        abort();
    }
}

static void keys(const char *s, unsigned sel)
{
    size_t caps[3] = {1, 1 + sel % 64, 1024}, c;
    char big[2][1024];
    int found[2];
    found[0] = gen_cxx_mangled_key(s, big[0], sizeof big[0]) == 0;
    found[1] = gen_cxx_display_key(s, big[1], sizeof big[1]) == 0;
    for (c = 0; c < 2; c++) {
        char *out = (char *)malloc(caps[c]);
        int k;
        if (!out)
            abort();
        for (k = 0; k < 2; k++) {
            int r = k ? gen_cxx_display_key(s, out, caps[c]) : gen_cxx_mangled_key(s, out, caps[c]);
            if (r == 0 && (!found[k] || strlen(out) >= caps[c] || strcmp(out, big[k]) != 0))
                abort();
        }
        free(out);
    }
    (void)gen_mangled_external(s, strlen(s));
    (void)gen_title_keep(NULL, s, strlen(s));
}

/* Whether the decimal digits of v appear in d[0..n). */
static int written(const uint8_t *d, size_t n, uint64_t v)
{
    char num[24];
    size_t k = (size_t)snprintf(num, sizeof num, "%llu", (unsigned long long)v), i;
    for (i = 0; i + k <= n; i++)
        if (memcmp(d + i, num, k) == 0)
            return 1;
    return 0;
}

static void frames(const uint8_t *d, size_t n)
{
    ctxprof_icpp_map m;
    ctxprof_error err;
    const uint8_t *z = (const uint8_t *)memchr(d, 0, n);
    uint64_t *fr, *again;
    FILE *f;
    size_t i;
    int rc;
    memset(&m, 0, sizeof m);
    if (!z || ctxprof_icpp_map_parse(&m, (const char *)d, (size_t)(z - d), "map", &err) != 0) {
        ctxprof_icpp_map_deinit(&m);
        memset(&m, 0, sizeof m);
        if (ctxprof_icpp_map_parse(&m, fixed_map, sizeof fixed_map - 1, "fixed", &err) != 0)
            abort();
    } else {
        n -= (size_t)(z - d) + 1;
        d = z + 1;
    }
    if (!su_path[0])
        fuzz_temp_path(su_path, sizeof su_path, "fuzz_gen_tool.su");
    f = fopen(su_path, "wb");
    if (!f || (n && fwrite(d, 1, n, f) != n) || fclose(f))
        abort();
    fr = (uint64_t *)calloc(m.funcs + 1, sizeof *fr);
    again = (uint64_t *)calloc(m.funcs + 1, sizeof *again);
    if (!fr || !again)
        abort();
    quiet(1);
    rc = gen_frames_read(su_path, &m, fr);
    quiet(0);
    if (rc != 0 && rc != GEN_EXIT_INPUT)
        abort(); /* only out of memory or a read error would be usage */
    for (i = 0; i < m.funcs; i++)
        if (fr[i] && !written(d, n, fr[i]))
            abort();
    memcpy(again, fr, (m.funcs + 1) * sizeof *fr);
    quiet(1);
    if (gen_frames_read(su_path, &m, again) != rc)
        abort();
    quiet(0);
    if (memcmp(again, fr, (m.funcs + 1) * sizeof *fr) != 0)
        abort();
    free(fr);
    free(again);
    ctxprof_icpp_map_deinit(&m);
}

static void titles(const uint8_t *d, size_t n)
{
    static const char base[] = "ctxprof-callgraph 1\nroot main\ncall main a\nfunc a\nfunc b\n"
                               "call a b\nfunc _Z3foov\n";
    ctxprof_graph g, g2;
    char *buf = (char *)malloc(n + 1), *w = NULL, *w2 = NULL;
    size_t i, wn = 0, wn2 = 0, lines, lines_was;
    if (!buf)
        abort();
    memcpy(buf, d, n);
    buf[n] = '\0';
    if (ctxprof_graph_init(&g, NULL) != CTXPROF_OK ||
        ctxprof_graph_parse(&g, base, sizeof base - 1, "base") != CTXPROF_OK)
        abort();
    if (gen_ci_titles(&g, "fuzz.ci", buf, n) != 0) /* only out of memory */
        abort();
    for (i = 0, lines = 0, lines_was = 0; i < n; i++) {
        lines += buf[i] == '\n';
        lines_was += d[i] == '\n';
    }
    if (lines != lines_was)
        abort(); /* a line break lost or made */
    if (ctxprof_graph_parse(&g, buf, n, "fuzz.ci") == CTXPROF_OK &&
        ctxprof_graph_finish(&g) == CTXPROF_OK) {
        if (ctxprof_graph_write(&g, &w, &wn) != CTXPROF_OK ||
            ctxprof_graph_init(&g2, NULL) != CTXPROF_OK ||
            ctxprof_graph_parse(&g2, w, wn, "written") != CTXPROF_OK ||
            ctxprof_graph_write(&g2, &w2, &wn2) != CTXPROF_OK || wn2 != wn ||
            memcmp(w, w2, wn) != 0)
            abort();
        ctxprof_graph_free_buffer(w, NULL);
        ctxprof_graph_free_buffer(w2, NULL);
        ctxprof_graph_deinit(&g2);
    }
    ctxprof_graph_deinit(&g);
    free(buf);
}

static void args(const uint8_t *d, size_t n)
{
    char *buf = (char *)malloc(n + 1), *argv[64], *orig[64];
    int argc = 0, rc, k;
    size_t i = 0;
    gen_opts o;
    FILE *saved;
    if (!buf)
        abort();
    memcpy(buf, d, n);
    buf[n] = '\0';
    while (i <= n && argc < 63) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    argv[argc] = NULL;
    memcpy(orig, argv, sizeof argv); /* gen_parse gathers the inputs in argv */
    memset(&o, 0, sizeof o);
    o.cmd = "pad";
    saved = stdout;
    if (!(stdout = fopen("/dev/null", "w")))
        abort();
    quiet(1);
    rc = gen_parse(argc, argv,
                   "o p bits scheme all-schemes root guard walks seed depth steps search "
                   "max-growth max-units budget pairs wrap",
                   &o);
    quiet(0);
    fclose(stdout);
    stdout = saved;
    if (rc != 0 && rc != -1 && rc != GEN_EXIT_USAGE)
        abort();
    if (rc == 0) {
        if ((o.bits != 0 && o.bits != 32 && o.bits != 64) || o.depth > 1000000 ||
            o.steps > 100000000 || o.pad.max_units > 65536 ||
            (o.pad.max_growth != 0 && !(o.pad.max_growth >= 1)) || o.n_inputs == 0 ||
            (o.scheme != 0 && !ctxprof_enc_scheme_name(o.scheme)))
            abort();
        for (i = 0; i < o.n_inputs; i++) { /* inputs are arguments, not options */
            for (k = 0; k < argc && orig[k] != o.inputs[i]; k++)
                ;
            if (k == argc || (o.inputs[i][0] == '-' && o.inputs[i][1] != '\0'))
                abort();
        }
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s;
    if (!size)
        return 0;
    switch (data[0] & 3) {
    case 0:
        if (!(s = (char *)malloc(size)))
            abort();
        memcpy(s, data + 1, size - 1);
        s[size - 1] = '\0';
        keys(s, size > 1 ? data[1] : 0);
        free(s);
        break;
    case 1:
        frames(data + 1, size - 1);
        break;
    case 2:
        titles(data + 1, size - 1);
        break;
    default:
        args(data + 1, size - 1);
        break;
    }
    return 0;
}
