/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Test only: a process that never loads the module but maps its first
 * page by hand (no dlopen, no code run) and puts a "live" status block
 * in anonymous memory where the module's block would be, to show that
 * rdrand-check --pid wants the module mapped as ld.so maps it
 * (tests/cli/test_pid.sh).  Usage: pid_map_forged MODULE SYMBOL-OFFSET;
 * prints "ready" and waits.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "rdrand_status.h"

int main(int argc, char **argv)
{
    const size_t span = 1u << 20, page = 4096;
    unsigned long offset;
    struct rdrand_status *b;
    char *base;
    int fd;

    if (argc != 3 || (fd = open(argv[1], O_RDONLY)) < 0)
        return 2;
    offset = strtoul(argv[2], NULL, 16);
    /* Room for the module's whole span, then only its first page. */
    base = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED || offset + sizeof(*b) > span
        || mmap(base, page, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0)
               == MAP_FAILED
        || mmap(base + (offset & ~(page - 1)), 4 * page, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
               == MAP_FAILED)
        return 2;
    b = (struct rdrand_status *)(base + offset);
    b->magic = RDRAND_STATUS_MAGIC;
    b->layout = RDRAND_STATUS_LAYOUT;
    b->size = sizeof(*b);
    snprintf(b->version, sizeof(b->version), "%s", RDRAND_PROVIDER_VERSION);
    b->live_instances = 1;
    b->rdrand_available = 1;
    b->counters_shared[RDRAND_STATUS_SEED_REQUESTS] = 42;
    puts("ready");
    fflush(stdout);
    pause();
    return 0;
}
