/* SPDX-License-Identifier: Apache-2.0 */
/*
 * splitmix64 (Vigna's reference: "x += 0x9e3779b97f4a7c15" before each
 * output, then the finalizer), the tests' stream of good words: a
 * bijection of its counter, so no output ever repeats.  Test-only; the
 * simulated CPU (hw_sim.c) keeps its own copy on purpose, so that the
 * tests that read its streams (sim_oracle.h) do not share its code.
 */
#ifndef RDRAND_TEST_SPLITMIX_H
#define RDRAND_TEST_SPLITMIX_H

#include <stdint.h>

#define RDRAND_TEST_GOLDEN 0x9e3779b97f4a7c15u

static inline uint64_t rdrand_test_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* The next output of the stream whose state is *state. */
static inline uint64_t rdrand_test_splitmix(uint64_t *state)
{
    return rdrand_test_mix64(*state += RDRAND_TEST_GOLDEN);
}

/* The i-th output (from 1) of the stream that starts at state 0. */
static inline uint64_t rdrand_test_splitmix_at(uint64_t i)
{
    return rdrand_test_mix64(i * RDRAND_TEST_GOLDEN);
}

#endif
