/* SPDX-License-Identifier: Apache-2.0 */
#include "counters.h"

#include <stdatomic.h>

static _Atomic uint64_t rdrand_counters[RDRAND_CTR_COUNT];

void rdrand_counter_add(enum rdrand_counter c, uint64_t n)
{
    atomic_fetch_add_explicit(&rdrand_counters[c], n, memory_order_relaxed);
}

uint64_t rdrand_counter_get(enum rdrand_counter c)
{
    return atomic_load_explicit(&rdrand_counters[c], memory_order_relaxed);
}
