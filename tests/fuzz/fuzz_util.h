/* Shared by the libFuzzer targets that go through a file. */
#ifndef FUZZ_UTIL_H_INCLUDED
#define FUZZ_UTIL_H_INCLUDED

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_temp[256];

static void fuzz_temp_remove(void)
{
    unlink(fuzz_temp);
}

/* A per-process scratch file, removed at exit, on tmpfs where there is
   one: rewriting a file in place on ext4 flushes it at every close
   (auto_da_alloc), which made the file-based targets 20 times slower. */
static void fuzz_temp_path(char *buf, size_t cap, const char *name)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fuzz_temp, sizeof fuzz_temp, "%s/%s.%ld", dir, name, (long)getpid());
    snprintf(buf, cap, "%s", fuzz_temp);
    atexit(fuzz_temp_remove);
}

#endif
