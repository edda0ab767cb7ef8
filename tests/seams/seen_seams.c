/* SPDX-License-Identifier: Apache-2.0 */
/* provider/seen.c as the module has it, and the seam that forgets the tables
 * and the process's key. */
#include "seen.c"

#include "seams.h"

void rdrand_seen_forget(void)
{
    if (rdrand_seen_table != NULL)
        memset(rdrand_seen_table, 0, sizeof(*rdrand_seen_table));
    atomic_store_explicit(&rdrand_process_key[0], 0, memory_order_relaxed);
    atomic_store_explicit(&rdrand_process_key[1], 0, memory_order_relaxed);
    /* a new process's load: the OS's key (once mapped, as a load has) */
    if (pthread_once(&rdrand_seen_once, rdrand_seen_map) == 0)
        rdrand_seen_key_from_os();
}

void rdrand_seen_seam_unkey(void)
{
    atomic_store_explicit(&rdrand_process_key[0], 0, memory_order_relaxed);
    atomic_store_explicit(&rdrand_process_key[1], 0, memory_order_relaxed);
}

uint64_t rdrand_seen_seam_key_half(int i, uint64_t candidate)
{
    return rdrand_seen_key_half(i, candidate);
}
