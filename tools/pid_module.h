/* SPDX-License-Identifier: Apache-2.0 */
/* rdrand-check --pid: the module file in a process (pid_module.c). */
#ifndef RDRAND_PID_MODULE_H
#define RDRAND_PID_MODULE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Paths as maps shows them: longer ones are cut for display only. */
#define PID_PATH_MAX 16384
#define PID_MAX_FOUND 4
#define PID_MAX_TRUSTED 8

/* A module file this rdrand-check trusts: its path and its bytes. */
struct pid_trusted {
    char path[PID_PATH_MAX];
    unsigned char *bytes;
    size_t size;
};

/* Read path as a trusted module: 1, or 0 and why in error. */
int pid_module_trust(struct pid_trusted *t, const char *path, char *error,
                     size_t len);
void pid_module_untrust(struct pid_trusted *t);

enum pid_find_status {
    PID_FIND_OK,
    PID_FIND_NO_MAPS, /* /proc/PID/maps cannot be opened: err says why */
    PID_FIND_TIMEOUT, /* the deadline passed */
    PID_FIND_TOO_BIG, /* more mappings or files than the caps */
    PID_FIND_NOMEM
};

struct pid_find {
    /* in */
    pid_t pid;
    uint64_t deadline_ms; /* pid_now_ms() after which it gives up */
    const struct pid_trusted *trusted;
    size_t ntrusted;
    /* out: blocks in trusted files (nfound may exceed PID_MAX_FOUND) */
    struct {
        uint64_t address, size;
        int deleted;
        char path[PID_PATH_MAX];
    } found[PID_MAX_FOUND];
    size_t nfound;
    /* files that export the block but are not a trusted module, and
     * trusted ones not mapped as the loader maps them (the first named) */
    size_t untrusted, misplaced;
    char untrusted_path[PID_PATH_MAX];
    int untrusted_deleted;
    /* mapped files that could not be opened to be examined */
    size_t unopened;
    char unopened_path[PID_PATH_MAX + 16];
    int err;
};

/* Milliseconds on the monotonic clock. */
uint64_t pid_now_ms(void);

/* Fill f's out part from /proc/PID/maps: an enum pid_find_status. */
int pid_module_find(struct pid_find *f);

#endif
