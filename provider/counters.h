/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Process-wide counters.  Relaxed atomics: each counter is exact and
 * monotonic on its own, and the seed path takes no lock to bump one.
 * No ordering between counters is promised.
 */
#ifndef RDRAND_COUNTERS_H
#define RDRAND_COUNTERS_H

#include <stdint.h>

enum rdrand_counter {
    RDRAND_CTR_RDRAND_WORDS,
    RDRAND_CTR_RDRAND_FAILURES,
    RDRAND_CTR_SEED_REQUESTS,
    RDRAND_CTR_SEED_FAILURES,
    RDRAND_CTR_SEED_BYTES,
    RDRAND_CTR_HEALTH_FAILURES,
    RDRAND_CTR_GENERATE_REQUESTS,
    RDRAND_CTR_GENERATE_FAILURES,
    RDRAND_CTR_CONDITIONED_BLOCKS,
    RDRAND_CTR_OS_BYTES,
    RDRAND_CTR_OS_FAILURES,
    RDRAND_CTR_DEFAULT_SEED_REQUESTS,
    RDRAND_CTR_COUNT
};

void rdrand_counter_add(enum rdrand_counter c, uint64_t n);
uint64_t rdrand_counter_get(enum rdrand_counter c);

#endif
