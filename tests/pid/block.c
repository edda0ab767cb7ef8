/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test only: a process that loads a library exporting a status block
 * (tests/pid/forged.c's, which the test names with --module so that
 * rdrand-check reads it) and sets the block's fields from its arguments,
 * so that every state a block can say, and every forged header, is
 * shown to rdrand-check --pid (tests/cli/test_pid.sh).  Usage:
 * pid_block LIBRARY [FIELD=VALUE]...; prints "ready" and waits.  FIELD
 * is a header or state field's name, or cN (counters_shared[N]); VALUE
 * a number (strtoull, base 0), or the text for version; protect=N
 * makes the block's Nth page (0: its header's) unreadable after.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rdrand_status.h"

#define FIELD(name)                                                            \
    {                                                                          \
#name, offsetof(struct rdrand_status, name),                           \
            sizeof(((struct rdrand_status *)0)->name)                          \
    }

static const struct {
    const char *name;
    size_t offset, size;
} fields[] = {
    FIELD(magic),
    FIELD(layout),
    FIELD(size),
    FIELD(generation),
    FIELD(writers),
    FIELD(live_instances),
    FIELD(live_default_instances),
    FIELD(live_config_refused),
    FIELD(coco_refusals),
    FIELD(coco_cause),
    FIELD(rdrand_available),
    FIELD(verdict_reason),
    FIELD(verdict),
    {"cond1", offsetof(struct rdrand_status, live_conditioning[1]), 4},
    {"cond2", offsetof(struct rdrand_status, live_conditioning[2]), 4},
    {"mix1", offsetof(struct rdrand_status, live_mix[1]), 4},
};

static int set(struct rdrand_status *b, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t len = eq != NULL ? (size_t)(eq - arg) : 0;
    unsigned long long v;
    char *end;

    if (eq == NULL)
        return 0;
    if (len == 7 && strncmp(arg, "version", len) == 0) {
        /* All 32 bytes if given: a forged version need not end. */
        size_t n = strlen(eq + 1);

        memset(b->version, 0, sizeof(b->version));
        memcpy(b->version, eq + 1,
               n < sizeof(b->version) ? n : sizeof(b->version));
        return 1;
    }
    v = strtoull(eq + 1, &end, 0);
    if (*end != '\0')
        return 0;
    if (arg[0] == 'c' && len > 1 && arg[1] >= '0' && arg[1] <= '9') {
        unsigned long c = strtoul(arg + 1, &end, 10);

        if (end != eq || c >= RDRAND_STATUS_COUNTERS)
            return 0;
        b->counters_shared[c] = v;
        return 1;
    }
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        if (strlen(fields[i].name) != len
            || strncmp(arg, fields[i].name, len) != 0)
            continue;
        if (fields[i].size == 8) {
            uint64_t u = v;

            memcpy((char *)b + fields[i].offset, &u, 8);
        } else {
            uint32_t u = (uint32_t)v;

            memcpy((char *)b + fields[i].offset, &u, 4);
        }
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    const uintptr_t page = 4096;
    void *library;
    struct rdrand_status *b;
    long protect = -1;

    if (argc < 2 || (library = dlopen(argv[1], RTLD_NOW)) == NULL
        || (b = dlsym(library, RDRAND_STATUS_SYMBOL)) == NULL)
        return 2;
    for (int i = 2; i < argc; i++)
        if (strncmp(argv[i], "protect=", 8) == 0)
            protect = strtol(argv[i] + 8, NULL, 10);
        else if (!set(b, argv[i])) {
            fprintf(stderr, "pid_block: %s: no such FIELD=VALUE\n", argv[i]);
            return 2;
        }
    if (protect >= 0
        && mprotect((void *)(((uintptr_t)b & ~(page - 1))
                             + (uintptr_t)protect * page),
                    page, PROT_NONE)
               != 0)
        return 2;
    puts("ready");
    fflush(stdout);
    pause();
    return 0;
}
