/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The status block's storage: one exported object, for `rdrand-check
 * --pid` and any reader that follows include/rdrand_status.h.  The
 * counters (counters.c) and the verdict (fault.c) live in it, so the
 * seed path writes the same words it always wrote; the instances' state
 * is written at a load or a teardown only (status.c).  Several instances
 * may load at once, on several threads: writers counts the changes
 * under way so that a reader can tell a quiet moment (two changes
 * overlapping would fool a plain odd/even sequence count).
 */
#include "status_block.h"

#include <stddef.h>

#ifndef RDRAND_PROVIDER_VERSION
#define RDRAND_PROVIDER_VERSION "0.0.0"
#endif

struct rdrand_status rdrand_status_block = {
    .magic = RDRAND_STATUS_MAGIC,
    .layout = RDRAND_STATUS_LAYOUT,
    .size = sizeof(struct rdrand_status),
    .version = RDRAND_PROVIDER_VERSION,
    .rdrand_available = -1,
};

/*
 * The exported name.  An alias, not the definition itself: a default-
 * visibility object is reached through the GOT from inside a PIC module,
 * which would add a load to every counter update; the hidden definition
 * keeps the module's own accesses as they were.
 */
extern struct rdrand_status rdrand_status
    __attribute__((alias("rdrand_status_block"), visibility("default")));

_Static_assert(RDRAND_STATUS_HEADER_SIZE
                   == offsetof(struct rdrand_status, generation),
               "the header is magic, layout, size and version");

void rdrand_status_begin(void)
{
    atomic_fetch_add_explicit(&rdrand_status_block.writers, 1,
                              memory_order_relaxed);
    /* The count is seen before what it guards (a compiler barrier on x86). */
    atomic_thread_fence(memory_order_release);
}

void rdrand_status_end(void)
{
    atomic_thread_fence(memory_order_release);
    atomic_fetch_add_explicit(&rdrand_status_block.generation, 1,
                              memory_order_relaxed);
    atomic_fetch_sub_explicit(&rdrand_status_block.writers, 1,
                              memory_order_relaxed);
}
