/* SPDX-License-Identifier: Apache-2.0 */
/* The self-test on a fresh state, wiped after: the verdict on one sample. */
#ifndef RDRAND_TEST_SELFTEST_SAMPLE_H
#define RDRAND_TEST_SELFTEST_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "health.h"

static inline int rdrand_health_selftest_sample(const uint64_t *words, size_t n)
{
    struct rdrand_health h;
    int reason;

    rdrand_health_init(&h);
    reason = rdrand_health_selftest(&h, words, n);
    rdrand_health_init(&h);
    return reason;
}

#endif
