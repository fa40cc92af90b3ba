/* enc_gen_speed: ctxprof-gen's time and memory on a call graph, by running
   it as a child process: median wall time of 5 runs and the largest
   resident set (getrusage of the child).

     enc_gen_speed TOOL GRAPH        (make bench passes build/ctxprof-gen and
                                      a gcc-sized synthetic graph) */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double speed_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int speed_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Runs argv with stdout to /dev/null and stderr to errpath (shown if it
   fails); wall seconds, *rss_kb, or -1. */
static double speed_run(char *const argv[], const char *errpath, long *rss_kb)
{
    double t0;
    struct rusage ru;
    int status;
    pid_t pid;
    fflush(stdout); /* or the child's freopen prints our buffer again */
    t0 = speed_now();
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (!freopen("/dev/null", "w", stdout) || !freopen(errpath, "w", stderr))
            _exit(127);
        execv(argv[0], argv);
        _exit(127);
    }
    if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1;
    *rss_kb = ru.ru_maxrss;
    return speed_now() - t0;
}

int main(int argc, char **argv)
{
    static const char *const what[4] = {"emit header (auto)", "emit --all-schemes",
                                        "stats (4 schemes)", "check --walks 200"};
    char out[256], errpath[256];
    int k;
    if (argc != 3) {
        fprintf(stderr, "usage: enc_gen_speed TOOL GRAPH\n");
        return 2;
    }
    snprintf(out, sizeof out, "/tmp/enc_gen_speed_%ld.h", (long)getpid());
    snprintf(errpath, sizeof errpath, "/tmp/enc_gen_speed_%ld.err", (long)getpid());
    printf("ctxprof-gen on %s: median of 5 runs (wall), largest resident set\n", argv[2]);
    printf("%-22s %9s %9s   %s\n", "phase", "seconds", "MiB", "target: < 2 s, < 200 MiB");
    for (k = 0; k < 4; k++) {
        char *cmd[8];
        double t[5];
        long rss = 0, r;
        int i, n = 0;
        cmd[n++] = argv[1];
        if (k <= 1) {
            cmd[n++] = (char *)"-o";
            cmd[n++] = out;
            if (k == 1)
                cmd[n++] = (char *)"--all-schemes";
        } else if (k == 2) {
            cmd[n++] = (char *)"stats";
        } else {
            cmd[n++] = (char *)"check";
            cmd[n++] = (char *)"--walks";
            cmd[n++] = (char *)"200";
        }
        cmd[n++] = argv[2];
        cmd[n] = NULL;
        for (i = 0; i < 5; i++) {
            if ((t[i] = speed_run(cmd, errpath, &r)) < 0) {
                FILE *e = fopen(errpath, "r");
                int c;
                fprintf(stderr, "enc_gen_speed: %s failed:\n", what[k]);
                while (e && (c = getc(e)) != EOF)
                    putc(c, stderr);
                if (e)
                    fclose(e);
                unlink(errpath);
                unlink(out);
                return 1;
            }
            if (r > rss)
                rss = r;
        }
        qsort(t, 5, sizeof t[0], speed_cmp);
        printf("%-22s %9.2f %9.1f   (min %.2f, max %.2f)\n", what[k], t[2], (double)rss / 1024.0,
               t[0], t[4]);
    }
    unlink(out);
    unlink(errpath);
    return 0;
}
