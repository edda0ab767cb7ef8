/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A health-test state for the benchmarks, as a provider thread's is
 * (source.c): keyed from RDRAND, AES-MMO where the CPU has AES-NI, with
 * tables of its own (zeroed, 64-byte aligned; the caller frees *table).
 * Unkeyed and without tables, bench_seed once timed the repetition test
 * alone on a multiply digest, about a third of the tests' cost.
 */
#ifndef RDRAND_BENCH_HEALTH_H
#define RDRAND_BENCH_HEALTH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aes.h"
#include "health.h"
#include "hw.h"
#include "seen_table.h"

static inline int bench_health_keyed(struct rdrand_health *h,
                                     struct rdrand_seen **table)
{
    uint64_t key[2];

    rdrand_health_init(h);
    if (!rdrand_hw_rdrand64(&key[0]) || !rdrand_hw_rdrand64(&key[1]))
        return 0;
    rdrand_health_set_key(h, key, rdrand_aes_present());
    *table = aligned_alloc(64, sizeof(**table));
    if (*table == NULL)
        return 0;
    memset(*table, 0, sizeof(**table));
    h->seen = *table;
    return 1;
}

#endif
