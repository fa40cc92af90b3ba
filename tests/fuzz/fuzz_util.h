/* Shared by the libFuzzer targets that go through a file. */
#ifndef FUZZ_UTIL_H_INCLUDED
#define FUZZ_UTIL_H_INCLUDED

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_temp[4][256];
static int fuzz_ntemp;

static void fuzz_temp_remove(void)
{
    int i;
    for (i = 0; i < fuzz_ntemp; i++)
        unlink(fuzz_temp[i]);
}

/* A per-process scratch file (at most four), removed at exit, on tmpfs
   where there is one: rewriting a file in place on ext4 flushes it at
   every close (auto_da_alloc), which made the file-based targets 20 times
   slower. */
static void fuzz_temp_path(char *buf, size_t cap, const char *name)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    if (fuzz_ntemp == 4)
        abort();
    snprintf(fuzz_temp[fuzz_ntemp], sizeof fuzz_temp[0], "%s/%s.%ld", dir, name, (long)getpid());
    snprintf(buf, cap, "%s", fuzz_temp[fuzz_ntemp]);
    if (fuzz_ntemp++ == 0)
        atexit(fuzz_temp_remove);
}

#endif
