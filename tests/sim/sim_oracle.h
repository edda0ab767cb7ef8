/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What sim.h says execution n (from 1) of a generated stream (clean=,
 * cycle=, every=, value=) gives, written apart from the simulated CPU
 * (hw_sim.c) so that the tests that hold it to sim.h (test_sim_grammar,
 * fuzz_sim) do not share its code: good word i is splitmix64's i-th
 * output from state 0.
 */
#ifndef RDRAND_TEST_SIM_ORACLE_H
#define RDRAND_TEST_SIM_ORACLE_H

#include <stdint.h>

#include "splitmix.h"

struct rdrand_test_gen {
    uint64_t clean, cycle, every, hex;
    int value; /* value=hex */
};

static inline uint64_t rdrand_test_gen_word(const struct rdrand_test_gen *g,
                                            uint64_t n)
{
    uint64_t k = n - g->clean;

    if (n <= g->clean)
        return rdrand_test_splitmix_at(n);
    if (g->value)
        return g->hex;
    if (g->cycle != 0)
        return rdrand_test_splitmix_at(g->clean + 1 + (k - 1) % g->cycle);
    if (g->every != 0 && k % g->every == 0)
        return g->hex;
    return rdrand_test_splitmix_at(n);
}

#endif
