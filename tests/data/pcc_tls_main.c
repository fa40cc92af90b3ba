/* Built by test_pcc.c (pcc_tls_shared_lib) as a PIE linked against
   pcc_tls_lib.so, which defines ctxprof_pcc_tls: the annotated code here
   must use the initial-exec model (CTXPROF_TLS_INITIAL_EXEC). Prints, for
   the main thread and a second one, the value the library saw inside an
   annotated call and whether the caller's value was restored. */
#include <pthread.h>
#include <stdio.h>
#include "ctxprof.h"

ctxprof_ctx lib_value(void);

static ctxprof_ctx work(int *restored)
{
    ctxprof_ctx seen;
    CTXPROF_PCC_FUNC();
    CTXPROF_PCC_CALL(77, seen = lib_value());
    *restored = ctxprof_pcc_tls.v == ctxprof__pcc_here && lib_value() == ctxprof__pcc_here;
    return seen;
}

static int thread_ok;
static ctxprof_ctx thread_seen;

static void *thread_main(void *arg)
{
    (void)arg;
    ctxprof_pcc_tls.v = 5;
    thread_seen = work(&thread_ok);
    return NULL;
}

int main(void)
{
    pthread_t th;
    int ok;
    ctxprof_ctx seen;
    ctxprof_pcc_tls.v = 3;
    if (pthread_create(&th, NULL, thread_main, NULL) != 0)
        return 1;
    seen = work(&ok);
    pthread_join(th, NULL);
    printf("%llu %d %llu %d\n", (unsigned long long)seen, ok, (unsigned long long)thread_seen,
           thread_ok);
    return 0;
}
