/* calc_pebs - the ICPP example program profiled by perf_event sampling.

   examples/icpp/calc.c (a recursive-descent interpreter with thousands of
   call paths) is compiled in unchanged; nothing is added to it at run
   time: no timer, no signal handler, no instrumentation active (its
   -finstrument-functions training hooks are compiled in but off: the same
   binary must serve for training and sampling, ICPP sec. 4.2 and 8). The
   kernel samples (PC, SP) into a ring (PEBS where the CPU has it,
   software task-clock on a VM), and a reader thread pushes each sample
   through the pipeline: height against the thread's ICPP base -> context
   identifier -> candidate paths of the training map -> (when ambiguous) a
   walk of a few frames in the sample's copy of the stack top -> weighted
   path -> hot calling context tree (ctxprof_hcct.h, weighted updates). The
   kernel's frame-pointer callchain of each sample is the truth the result
   is checked against.

     calc_pebs run [SECS]            work (CTXPROF_ICPP_TRAIN=out.paths trains)
     calc_pebs train OUT [SECS]      trains OUT with no instrumentation: the
                                     kernel's callchain of each sample (10 kHz)
                                     gives its call path (ctxprof_pebs_train)
     calc_pebs profile MAP [SECS]    sample at 1 kHz, print the level used, the
                                     precision against training and the hottest paths

   Built two ways: as calc (the hooks compiled in, off), or plain (no hooks,
   -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer: calc_pebs_plain),
   trained by `train` and profiled by `profile`: ICPP with no
   instrumentation at any point.

   Every sample goes through three pipelines, so one run compares them:
   (PC, SP) alone, walks of up to 8 frames, walks of up to
   CTXPROF_ICPP_FRAMES (64 in the Makefile's build) frames.

   Exit status: 0, 1 on an error, 2 on a usage error, 77 when perf_event
   sampling is not available here (the message says why).

   Built with the flags of calc (see the Makefile); examples/pebs/demo.sh
   trains, then profiles. */
#define main calc_main_unused
#include "../icpp/calc.c"
#undef main
#include "../../ctxprof_pebs.h"

/* Three pipelines on every sample: PC and SP alone, short and long walks. */
static ctxprof_pebs_paths pp_alone, pp_walk8, pp_walk;
static ctxprof_pebs prof;
static ctxprof_icpp_map pmap;
static ctxprof_symtab psyms;
#if defined(CTXPROF_HCCT_NAMED)
static ctxprof_hcct tree;
#endif

static void both(void *user, const ctxprof_pebs_sample *s)
{
    (void)user;
    ctxprof_pebs_paths_sample(&pp_alone, s);
    ctxprof_pebs_paths_sample(&pp_walk8, s);
    ctxprof_pebs_paths_sample(&pp_walk, s);
}

/* Opens the sampler and attaches this thread: 0, 1 on an error, or 77
   when perf_event sampling is not available here (examples/pebs/demo.sh
   then skips the step). */
static int pebs_start(const ctxprof_pebs_desc *d)
{
    int rc = ctxprof_pebs_open(&prof, d);
    if (rc == CTXPROF_OK)
        rc = ctxprof_pebs_attach(&prof, 0, 0);
    if (rc == CTXPROF_OK)
        return 0;
    fprintf(stderr, "calc_pebs: %s\n", ctxprof_error_message(&prof.error));
    ctxprof_pebs_close(&prof); /* harmless after a failed open */
    return rc == CTXPROF_ERR_UNSUPPORTED ? 77 : 1;
}

static int profile_start(const char *mapfile)
{
    ctxprof_pebs_paths_desc pd;
#if defined(CTXPROF_HCCT_NAMED)
    ctxprof_hcct_desc hd;
#endif
    ctxprof_pebs_desc d;
    ctxprof_error err;
    if (ctxprof_icpp_map_load(&pmap, mapfile, &err) || ctxprof_symtab_init(&psyms, &err) ||
        ctxprof_icpp_map_bind(&pmap, &psyms, &err))
        goto fail;
#if defined(CTXPROF_HCCT_NAMED)
    memset(&hd, 0, sizeof hd);
    hd.metric = CTXPROF_HCCT_SAMPLES;
    hd.phi = 0.005; /* hot: more than 0.5% of the samples */
    hd.namer = ctxprof_pebs_paths_namer;
    hd.namer_user = &pmap;
    if (ctxprof_hcct_init(&tree, &hd, &err))
        goto fail;
#endif
    memset(&pd, 0, sizeof pd);
    pd.map = &pmap;
    pd.ambiguous = CTXPROF_PEBS_AMBIG_DROP;
    pd.unit_weight = 1;
    if (ctxprof_pebs_paths_init(&pp_alone, &pd, &err))
        goto fail;
    pd.max_walk = 8;
    if (ctxprof_pebs_paths_init(&pp_walk8, &pd, &err))
        goto fail;
    pd.max_walk = CTXPROF_ICPP_FRAMES;
#if defined(CTXPROF_HCCT_NAMED)
    pd.on_path = ctxprof_pebs_paths_to_hcct; /* resolved paths feed the HCCT */
    pd.user = &tree;
#endif
    if (ctxprof_pebs_paths_init(&pp_walk, &pd, &err))
        goto fail;
    memset(&d, 0, sizeof d);
    d.period_ns = 1000000;            /* 1 kHz of thread CPU time (software level) */
    d.period = 3000000;               /* about 1 kHz of cycles (hardware levels) */
    d.flags = CTXPROF_PEBS_CALLCHAIN; /* the truth, for the evaluation only */
    d.stack_bytes = 4096;             /* frame words for the partial walks */
    d.on_sample = both;
    return pebs_start(&d);
    return 0;
fail:
    fprintf(stderr, "calc_pebs: %s\n", ctxprof_error_message(&err));
    return 1;
}

static void line(const char *what, const ctxprof_pebs_paths_stats *st)
{
    double in = (double)(st->precise + st->ambiguous + st->missing + st->ruled_out);
    if (in == 0)
        in = 1;
    printf("  %-17s precise %5.1f%% (correct %5.1f%%, incorrect %4.1f%%)  ambiguous %5.1f%%  "
           "missing %4.1f%%  ruled out %4.1f%%",
           what, 100.0 * (double)st->precise / in, 100.0 * (double)st->correct / in,
           100.0 * (double)st->incorrect / in, 100.0 * (double)st->ambiguous / in,
           100.0 * (double)st->missing / in, 100.0 * (double)st->ruled_out / in);
    if (st->walked)
        printf("  frames walked %.2f/sample", (double)st->frames / in);
    printf("\n");
}

typedef struct hot {
    uint32_t path;
    uint64_t w;
} hot;

static int hot_cmp(const void *a, const void *b)
{
    const hot *x = (const hot *)a, *y = (const hot *)b;
    return x->w < y->w ? 1 : x->w > y->w ? -1 : (x->path > y->path) - (x->path < y->path);
}

static int profile_report(void)
{
    ctxprof_pebs_stats ps;
    const ctxprof_pebs_paths_stats *w = &pp_walk.st;
    hot *h;
    size_t i, n = 0;
    int rc = 0;
    ctxprof_pebs_close(&prof);
    ctxprof_pebs_stats_get(&prof, &ps);
    printf("level used: %s (%s)\n", ctxprof_pebs_level_name(prof.level),
           prof.level == CTXPROF_PEBS_LEVEL_PEBS ? "Intel PEBS, precise_ip=1"
           : prof.level == CTXPROF_PEBS_LEVEL_HW ? "hardware cycles: no PEBS here"
                                                 : "software task-clock: no hardware PMU here");
    printf("probe: %s\n", ctxprof_pebs_explain(&prof));
    printf("samples %llu (lost %llu); in trained functions %llu, elsewhere (libc, hooks) %llu\n",
           (unsigned long long)ps.samples, (unsigned long long)ps.lost,
           (unsigned long long)(w->precise + w->ambiguous + w->missing + w->ruled_out),
           (unsigned long long)w->outside);
    printf("precision against training (share of the samples in trained functions;\n"
           "correct/incorrect: checked against the kernel's frame-pointer callchain):\n");
    line("PC, SP alone", &pp_alone.st);
    line("walks <= 8", &pp_walk8.st);
    {
        char what[32];
        snprintf(what, sizeof what, "walks <= %d", CTXPROF_ICPP_FRAMES);
        line(what, &pp_walk.st);
    }
    h = (hot *)calloc(pmap.paths + 1, sizeof *h);
    if (!h) {
        fprintf(stderr, "calc_pebs: out of memory for %zu paths\n", pmap.paths);
        rc = 1;
        goto no_table;
    }
    for (i = 0; i < pmap.paths; i++)
        if (pp_walk.path_weight[i]) {
            h[n].path = (uint32_t)i;
            h[n].w = pp_walk.path_weight[i];
            n++;
        }
    qsort(h, n, sizeof *h, hot_cmp);
    printf("hottest call paths (share of resolved samples, with walks; root first):\n");
    for (i = 0; i < n && i < 5; i++) {
        uint32_t f[CTXPROF_PEBS_PATH_MAX];
        size_t len = ctxprof_icpp_map_path_funcs(&pmap, h[i].path, f, CTXPROF_PEBS_PATH_MAX), k;
        printf("  %5.1f%%  %3zu frames: ",
               100.0 * (double)h[i].w / (double)(w->weight ? w->weight : 1), len);
        for (k = 0; k < len && k < CTXPROF_PEBS_PATH_MAX; k++) {
            if (len > 10 && k == 3) { /* the first three and the last six */
                printf(" > ... %zu frames ...", len - 9);
                k = len - 7;
                continue;
            }
            printf("%s%s", k ? " > " : "", ctxprof_icpp_map_func_name(&pmap, f[k]));
        }
        printf("\n");
    }
no_table:
    free(h);
#if defined(CTXPROF_HCCT_NAMED)
    {
        /* the HCCT aggregates the paths into their hot calling contexts */
        ctxprof_hcct_profile prof_h;
        ctxprof_hcct_write_desc wd;
        ctxprof_error err;
        char *text = NULL;
        size_t len = 0;
        memset(&prof_h, 0, sizeof prof_h);
        memset(&wd, 0, sizeof wd);
        wd.format = CTXPROF_HCCT_TOP;
        wd.top = 5;
        wd.max_depth = 6;
        if (ctxprof_hcct_query(&tree, 0, &prof_h, &err) == CTXPROF_OK &&
            ctxprof_hcct_profile_format(&prof_h, &wd, &text, &len, &err) == CTXPROF_OK) {
            printf("hot calling contexts (HCCT, phi 0.5%%):\n");
            fwrite(text, 1, len, stdout);
            ctxprof_hcct_text_free(&prof_h, text);
        } else {
            printf("hcct: %s\n", ctxprof_error_message(&err));
        }
        ctxprof_hcct_profile_deinit(&prof_h);
        ctxprof_hcct_deinit(&tree);
    }
#endif
    ctxprof_pebs_paths_deinit(&pp_alone);
    ctxprof_pebs_paths_deinit(&pp_walk8);
    ctxprof_pebs_paths_deinit(&pp_walk);
    ctxprof_icpp_map_deinit(&pmap);
    ctxprof_symtab_deinit(&psyms);
    return rc;
}

/* Training from callchain samples: no hooks needed (a plain build). */
static ctxprof_pebs_train trainer;

static int train_start(void)
{
    ctxprof_pebs_train_desc td;
    ctxprof_pebs_desc d;
    ctxprof_error err;
    memset(&td, 0, sizeof td);
    td.symtab = &psyms;
    if (ctxprof_symtab_init(&psyms, &err) || ctxprof_pebs_train_init(&trainer, &td, &err)) {
        fprintf(stderr, "calc_pebs: %s\n", ctxprof_error_message(&err));
        return 1;
    }
    memset(&d, 0, sizeof d);
    d.period_ns = 100000; /* 10 kHz of thread CPU time: more paths per second */
    d.period = 300000;
    d.flags = CTXPROF_PEBS_CALLCHAIN; /* the call path of each sample */
    d.stack_bytes = 4096; /* top words: frameless states; frames: the callers' heights */
    d.ring_pages = 512;   /* records of ~5 KiB (stack copy and callchain) */
    d.on_sample = ctxprof_pebs_train_sample;
    d.user = &trainer;
    return pebs_start(&d);
}

static int train_end(const char *out)
{
    const ctxprof_pebs_train_stats *t = &trainer.st;
    ctxprof_pebs_stats ps;
    ctxprof_error err;
    int rc = 0;
    ctxprof_pebs_close(&prof);
    ctxprof_pebs_stats_get(&prof, &ps);
    if (ctxprof_pebs_train_save(&trainer, out, &err) != CTXPROF_OK) {
        fprintf(stderr, "calc_pebs: %s\n", ctxprof_error_message(&err));
        rc = 1;
    }
    printf("level used: %s; samples %llu (lost %llu)\n", ctxprof_pebs_level_name(prof.level),
           (unsigned long long)ps.samples, (unsigned long long)(ps.lost + ps.lost_samples));
    printf("trained %llu: frameless (prologue, return) %llu, outside the program %llu, "
           "no base %llu, cut chains %llu, table full %llu\n",
           (unsigned long long)t->used, (unsigned long long)t->frameless,
           (unsigned long long)t->outside, (unsigned long long)t->nobase,
           (unsigned long long)t->truncated, (unsigned long long)t->full);
    printf("push/pop states (a non-body frame offset): %llu moved to the body's height by "
           "their CFA rule, %llu left out (no rule); %llu samples without a rule (guessed)\n",
           (unsigned long long)t->folded, (unsigned long long)t->unsettled,
           (unsigned long long)t->guessed);
    ctxprof_pebs_train_deinit(&trainer);
    ctxprof_symtab_deinit(&psyms);
    return rc;
}

int main(int argc, char **argv)
{
    int prof_mode = argc >= 3 && strcmp(argv[1], "profile") == 0;
    int train_mode = argc >= 3 && strcmp(argv[1], "train") == 0, a = prof_mode || train_mode;
    double secs = 1.0;
    long r;
    int rc;
    if (!a && !(argc >= 2 && strcmp(argv[1], "run") == 0)) {
        fprintf(stderr, "usage: calc_pebs run [SECS] | calc_pebs train OUT [SECS] | "
                        "calc_pebs profile MAP [SECS]\n");
        return 2;
    }
    if (argc >= 3 + a && (secs = parse_secs(argv[2 + a])) < 0) /* calc.c's */
        return 2;
    if ((rc = prof_mode ? profile_start(argv[2]) : train_mode ? train_start() : 0) != 0)
        return rc;
    r = work(secs); /* called from main in every mode: the same paths and heights */
    if (prof_mode)
        return profile_report();
    if (train_mode)
        return train_end(argv[2]);
    printf("result %ld\n", r);
    return 0;
}
