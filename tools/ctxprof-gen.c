/* ctxprof-gen - generator for ctxprof: C headers of codes, decode tables and
   frame padding tables. One C file, libc only; it includes ctxprof.h with
   the implementation, so the tool and the runtime share one code base.

   Exit codes: 0 ok, 1 bad input, 2 usage or I/O. */
#define CTXPROF_IMPLEMENTATION
#include "../ctxprof.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void gen_usage(FILE *f)
{
    fprintf(f,
            "usage: ctxprof-gen COMMAND [options] ...\n"
            "       ctxprof-gen --help | --version\n"
            "\n"
            "commands:\n"
            "  pad [-o OUT.h] [--search greedy|random|none] [--max-growth X] [--seed N]\n"
            "      [--wrap] [--pairs N] PATHMAP [FRAMES]\n"
            "      frame padding for ICPP (activation record resizing, Mytkowicz et al.\n"
            "      OOPSLA'09 sec. 5) from a path map written by a training run:\n"
            "        ctxprof-paths 1\n"
            "        path COUNT HEIGHT F1 F2 ... Fn    # F1 the root, HEIGHT stack bytes\n"
            "      Prints key=value lines (paths, precise_before, precise_after,\n"
            "      ambiguity_le2_after, max_stack_growth, inseparable, ...) on stdout and\n"
            "      writes the CTXPROF_PAD_<function> table to OUT.h (with -o -, the table\n"
            "      goes to stdout and the report to stderr). --search random is the\n"
            "      paper's random search (5.1.1, no stack limit); greedy (default) is ours\n"
            "      and keeps the largest height within --max-growth (default 1.2) times\n"
            "      the unpadded one. --wrap also picks call-site wraps (5.2) for what\n"
            "      padding cannot separate; --pairs N lists N such pairs and why.\n"
            "      FRAMES (optional): gcc -fstack-usage output (.su) or a ctxprof-callgraph\n"
            "      file with 'func NAME frame=BYTES' lines; adds the largest frame growth.\n");
}

/* Frame sizes from a .su file ("file.c:12:5:name<TAB>48<TAB>static") or a
   ctxprof-callgraph file ("func NAME frame=BYTES"); returns the largest
   ratio (frame + pad) / frame over padded functions with a known frame,
   or 0 when none is known; -1 on bad input. */
static double gen_frame_growth(const char *path, const ctxprof_icpp_pads *pads, size_t *known)
{
    char *buf;
    size_t len;
    ctxprof_error err;
    ctxprof__lines L;
    double worst = 0;
    *known = 0;
    if (ctxprof__read_file(path, &buf, &len, NULL, &err)) {
        fprintf(stderr, "ctxprof-gen: %s\n", ctxprof_error_message(&err));
        return -1;
    }
    ctxprof__lines_init(&L, buf, len, path);
    while (ctxprof__lines_next(&L)) {
        char *a = ctxprof__lines_tok(&L), *b = ctxprof__lines_tok(&L), *name = NULL;
        uint64_t frame = 0;
        if (a && strcmp(a, "ctxprof-callgraph") == 0)
            continue;
        if (a && strcmp(a, "func") == 0 && b) {
            char *f;
            name = b;
            while ((f = ctxprof__lines_tok(&L)) != NULL)
                if (strncmp(f, "frame=", 6) == 0 && ctxprof__parse_u64(f + 6, &frame) != 0) {
                    fprintf(stderr, "%s:%u: bad frame size '%s'\n", path, L.line, f);
                    free(buf);
                    return -1;
                }
        } else if (a && b && strchr(a, ':')) { /* .su: name after the last ':' */
            name = strrchr(a, ':') + 1;
            if (ctxprof__parse_u64(b, &frame) != 0) {
                fprintf(stderr, "%s:%u: bad frame size '%s'\n", path, L.line, b);
                free(buf);
                return -1;
            }
        } else {
            continue; /* other call-graph lines */
        }
        if (name && frame) {
            unsigned u = ctxprof_icpp_pads_units(pads, name);
            (*known)++;
            if (u && (double)(frame + 16u * u) / (double)frame > worst)
                worst = (double)(frame + 16u * u) / (double)frame;
        }
    }
    free(buf);
    return worst;
}

static int gen_cmd_pad(int argc, char **argv)
{
    ctxprof_icpp_pad_desc desc;
    ctxprof_icpp_map map;
    ctxprof_icpp_pads pads;
    ctxprof_error err;
    const char *out = NULL, *in = NULL, *frames = NULL;
    size_t max_pairs = 0, need, known = 0;
    char *text = NULL, *header = NULL;
    size_t hlen;
    int i, rc = 0;
    FILE *rep = stdout;
    memset(&desc, 0, sizeof desc);
    memset(&map, 0, sizeof map);
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(a, "--search") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            desc.search = strcmp(v, "greedy") == 0   ? CTXPROF_ICPP_SEARCH_GREEDY
                          : strcmp(v, "random") == 0 ? CTXPROF_ICPP_SEARCH_RANDOM
                          : strcmp(v, "none") == 0   ? CTXPROF_ICPP_SEARCH_NONE
                                                     : -1;
            if (desc.search < 0) {
                fprintf(stderr, "ctxprof-gen pad: unknown search '%s'\n", v);
                return 2;
            }
        } else if (strcmp(a, "--max-growth") == 0 && i + 1 < argc) {
            char *end;
            desc.max_growth = strtod(argv[++i], &end);
            if (*end || desc.max_growth < 1) {
                fprintf(stderr, "ctxprof-gen pad: --max-growth wants a number >= 1\n");
                return 2;
            }
        } else if (strcmp(a, "--seed") == 0 && i + 1 < argc) {
            uint64_t v;
            if (ctxprof__parse_u64(argv[++i], &v)) {
                fprintf(stderr, "ctxprof-gen pad: bad --seed\n");
                return 2;
            }
            desc.seed = v;
        } else if (strcmp(a, "--pairs") == 0 && i + 1 < argc) {
            uint64_t v;
            if (ctxprof__parse_u64(argv[++i], &v)) {
                fprintf(stderr, "ctxprof-gen pad: bad --pairs\n");
                return 2;
            }
            max_pairs = (size_t)v;
        } else if (strcmp(a, "--wrap") == 0) {
            desc.wrap = 1;
        } else if (strcmp(a, "--help") == 0) {
            gen_usage(stdout);
            return 0;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "ctxprof-gen pad: unknown option '%s'\n", a);
            return 2;
        } else if (!in) {
            in = a;
        } else if (!frames) {
            frames = a;
        } else {
            fprintf(stderr, "ctxprof-gen pad: too many arguments\n");
            return 2;
        }
    }
    if (!in) {
        gen_usage(stderr);
        return 2;
    }
    if (ctxprof_icpp_map_load(&map, in, &err)) {
        fprintf(stderr, "%s\n", ctxprof_error_message(&err));
        return err.status == CTXPROF_ERR_SYS ? 2 : 1;
    }
    if (ctxprof_icpp_pad_compute(&map, &desc, &pads, &err)) {
        fprintf(stderr, "ctxprof-gen pad: %s\n", ctxprof_error_message(&err));
        ctxprof_icpp_map_deinit(&map);
        return 2;
    }
    if (out && strcmp(out, "-") == 0)
        rep = stderr;
    need = ctxprof_icpp_pads_report_text(&pads, max_pairs, NULL, 0);
    text = (char *)malloc(need + 1);
    if (!text) {
        rc = 2;
        goto done;
    }
    ctxprof_icpp_pads_report_text(&pads, max_pairs, text, need + 1);
    fprintf(rep, "functions=%zu\n", map.funcs);
    if (frames) {
        double g = gen_frame_growth(frames, &pads, &known);
        if (g < 0) {
            rc = 1;
            goto done;
        }
        fprintf(rep, "frames_known=%zu\nmax_frame_growth=%.4f\n", known, g);
    }
    fputs(text, rep);
    if (out) {
        if (ctxprof_icpp_pads_emit(&pads, in, out, &header, &hlen, &err) ||
            ctxprof__icpp_write(out, header, hlen, &err)) {
            fprintf(stderr, "ctxprof-gen pad: %s\n", ctxprof_error_message(&err));
            rc = 2;
        }
    }
done:
    if (fflush(rep) != 0)
        rc = 2;
    free(text);
    free(header);
    ctxprof_icpp_pads_deinit(&pads);
    ctxprof_icpp_map_deinit(&map);
    return rc;
}

static const struct {
    const char *name;
    int (*fn)(int argc, char **argv);
} gen_commands[] = {
    {"pad", gen_cmd_pad},
};

int main(int argc, char **argv)
{
    size_t i;
    if (argc < 2) {
        gen_usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        gen_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ctxprof-gen %s\n", CTXPROF_VERSION_STRING);
        return 0;
    }
    for (i = 0; i < sizeof gen_commands / sizeof gen_commands[0]; i++)
        if (strcmp(argv[1], gen_commands[i].name) == 0)
            return gen_commands[i].fn(argc - 1, argv + 1);
    fprintf(stderr, "ctxprof-gen: unknown command '%s' (try --help)\n", argv[1]);
    return 2;
}
