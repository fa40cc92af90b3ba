/* libFuzzer target: the path strings of a loaded ICPP path map
   (ctxprof_icpp_map_path_str and _demangled; the target is linked with
   libstdc++, so names are demangled by __cxa_demangle). The input is a
   path map; for each path (the first 64), into heap buffers of exactly
   the size asked: the length asked for is the length written, the plain
   string is the path's function names joined by '>', and every smaller
   buffer holds the same string cut to fit, NUL-terminated. */
#define CTXPROF_IMPLEMENTATION
#include "../../ctxprof.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t path_str(const ctxprof_icpp_map *m, uint32_t p, int dm, char *buf, size_t cap)
{
    return dm ? ctxprof_icpp_map_path_str_demangled(m, p, buf, cap)
              : ctxprof_icpp_map_path_str(m, p, buf, cap);
}

/* The plain string is the names of the path's functions joined by '>'. */
static void check_names(const ctxprof_icpp_map *m, uint32_t p, const char *s, size_t len)
{
    size_t n = ctxprof_icpp_map_path_funcs(m, p, NULL, 0), k, at = 0;
    uint32_t *fs = (uint32_t *)calloc(n + 1, sizeof *fs);
    if (!fs || ctxprof_icpp_map_path_funcs(m, p, fs, n) != n)
        abort();
    for (k = 0; k < n; k++) {
        const char *nm = ctxprof_icpp_map_func_name(m, fs[k]);
        size_t l;
        if (!nm)
            abort();
        l = strlen(nm);
        if (k && s[at++] != '>')
            abort();
        if (at + l > len || memcmp(s + at, nm, l) != 0)
            abort();
        at += l;
    }
    if (at != len)
        abort();
    free(fs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ctxprof_icpp_map m;
    ctxprof_error err;
    uint32_t p;
    memset(&m, 0, sizeof m);
    if (ctxprof_icpp_map_parse(&m, (const char *)data, size, "fuzz", &err) != CTXPROF_OK) {
        if (!err.detail[0])
            abort();
        ctxprof_icpp_map_deinit(&m);
        return 0;
    }
    for (p = 0; p < m.paths && p < 64; p++) {
        int dm;
        for (dm = 0; dm < 2; dm++) {
            size_t len = path_str(&m, p, dm, NULL, 0), sz;
            char *want = (char *)malloc(len + 1);
            if (!want)
                abort();
            if (path_str(&m, p, dm, want, len + 1) != len || strlen(want) != len)
                abort();
            if (!dm)
                check_names(&m, p, want, len);
            for (sz = 1; sz <= len && sz < 300; sz++) {
                char *b = (char *)malloc(sz);
                if (!b)
                    abort();
                if (path_str(&m, p, dm, b, sz) != len || strlen(b) != sz - 1 ||
                    memcmp(b, want, sz - 1) != 0)
                    abort();
                free(b);
            }
            free(want);
        }
    }
    ctxprof_icpp_map_deinit(&m);
    return 0;
}
