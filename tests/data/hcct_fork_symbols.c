/* fork() while another thread holds the mutex of the symbols that name
   code addresses (CTXPROF_HCCT_CODE_ADDRESSES), with no session ever
   started: the child's query must not wait forever for it. Prints
   "child ok", "child hung" or "child failed" (tests/test_hcct.c,
   hcct_fork_symbols). A program of its own: the fork handlers are
   registered once per process, and the test runner's sessions have
   registered them already. */
#define _GNU_SOURCE
#define CTXPROF_IMPLEMENTATION
#include "ctxprof_hcct.h"
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static ctxprof_hcct tree;
static int held;

static int query(void)
{
    ctxprof_hcct_profile p;
    int rc = ctxprof_hcct_query(&tree, -1, &p, NULL);
    if (rc == CTXPROF_OK)
        ctxprof_hcct_profile_deinit(&p);
    return rc;
}

/* holds the mutex across the fork, as a query naming routines does */
static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&ctxprof__hcct_symmu);
    __atomic_store_n(&held, 1, __ATOMIC_RELEASE);
    usleep(100000);
    pthread_mutex_unlock(&ctxprof__hcct_symmu);
    return NULL;
}

int main(void)
{
    ctxprof_hcct_desc d;
    pthread_t th;
    pid_t child;
    int st = 0;
    memset(&d, 0, sizeof d);
    d.mode = CTXPROF_HCCT_CCT;
    d.max_bytes = (size_t)1 << 20;
    d.flags = CTXPROF_HCCT_CODE_ADDRESSES;
    if (ctxprof_hcct_init(&tree, &d, NULL) != CTXPROF_OK)
        return 1;
    ctxprof_hcct_push(&tree, (uintptr_t)&main, 0);
    ctxprof_hcct_pop(&tree);
    if (query() != CTXPROF_OK) /* names main: the mutex's first use */
        return 2;
    if (pthread_create(&th, NULL, holder, NULL) != 0)
        return 3;
    while (!__atomic_load_n(&held, __ATOMIC_ACQUIRE))
        usleep(100);
    child = fork();
    if (child == 0) {
        alarm(2);
        _exit(query() == CTXPROF_OK ? 0 : 1);
    }
    pthread_join(th, NULL);
    if (child < 0 || waitpid(child, &st, 0) != child)
        return 4;
    printf("child %s\n", WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM ? "hung"
                         : WIFEXITED(st) && WEXITSTATUS(st) == 0     ? "ok"
                                                                     : "failed");
    ctxprof_hcct_deinit(&tree);
    return 0;
}
