/* SPDX-License-Identifier: Apache-2.0 */
#include "samples.h"

#include <stdatomic.h>

#include "health.h"

/*
 * A cycle that spans threads: a thread's own tests start with an empty
 * history, so a process that draws on a new thread per request (each
 * drawing fewer words than the windowed tests need) could be served the
 * same cycle over and over, every thread passing its self-test.  So each
 * self-test also compares its words with the samples of earlier
 * self-tests in the process: a direct-mapped table of keyed digests
 * (slot: the digest's top 10 bits), read and written with relaxed
 * atomics.  It runs only where a self-test runs (a thread's first
 * request, a recovery), never on the seed path, and takes no lock.
 *
 * Races only lose entries (a slot overwritten), never invent a match:
 * a hit needs an equal 64-bit digest, which distinct words give with
 * probability 2^-64 (64 words against one slot each: 2^-58 per
 * self-test).  A clean source never trips it in practice.
 *
 * The key is the process's, set once by whichever self-test comes first
 * (each half by compare-and-swap from 0, so every thread ends up with
 * the same halves); it comes from self-test words, never delivered, and
 * from other words of the sample than the thread's own key.  The table
 * holds digests of words that were never delivered.
 */
static _Atomic uint64_t rdrand_sample_key[2];
static _Atomic uint64_t rdrand_sample_table[RDRAND_SAMPLE_SLOTS];

static uint64_t rdrand_sample_key_half(int i, uint64_t candidate)
{
    uint64_t expected = 0;

    if (candidate == 0)
        candidate = 1;
    if (atomic_compare_exchange_strong_explicit(
            &rdrand_sample_key[i], &expected, candidate, memory_order_relaxed,
            memory_order_relaxed))
        return candidate;
    return expected;
}

int rdrand_samples_seen(const uint64_t *words, size_t n)
{
    uint64_t key[2];
    int seen = 0;

    if (n < 6)
        return 0;
    key[0] = rdrand_sample_key_half(0, words[2] ^ words[n - 3]);
    key[1] = rdrand_sample_key_half(1, words[3] ^ words[n - 4]);
    for (size_t i = 0; i < n; i++) {
        uint64_t d = rdrand_health_digest(key, words[i]);

        seen |= d != 0
                && atomic_load_explicit(&rdrand_sample_table[d >> 54],
                                        memory_order_relaxed)
                       == d;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t d = rdrand_health_digest(key, words[i]);

        atomic_store_explicit(&rdrand_sample_table[d >> 54], d,
                              memory_order_relaxed);
    }
    return seen;
}

void rdrand_samples_forget(void)
{
    for (size_t i = 0; i < RDRAND_SAMPLE_SLOTS; i++)
        atomic_store_explicit(&rdrand_sample_table[i], 0, memory_order_relaxed);
    atomic_store_explicit(&rdrand_sample_key[0], 0, memory_order_relaxed);
    atomic_store_explicit(&rdrand_sample_key[1], 0, memory_order_relaxed);
}
