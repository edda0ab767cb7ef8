/* SPDX-License-Identifier: Apache-2.0 */
#include "samples.h"

/*
 * Why a process-wide table.  A thread's own tests see 32 words back
 * (health.h), and a self-test's samples looked across threads only when
 * a thread self-tests, which a healthy long-lived thread never does
 * again: a cycle of 33 or more words drawn on one context was served for
 * ever.  So every word a thread draws is digested under the process's
 * key, looked up in this direct-mapped table and entered, by all
 * threads.  A cycle, or a word repeated at any lag, trips the test at
 * the first repeat whose first occurrence is still in the table,
 * whatever the request pattern: the table outlives threads, contexts and
 * instances.
 *
 * Reach.  A slot is overwritten by each later digest with probability
 * 2^-14, so p words of the process's stream later an entry is still
 * there with probability q = e^(-p / 2^14): 0.998 at 33 words, 0.78 at
 * 4,096, 0.37 at 16,384.  A cycle of period p repeats p words each
 * period, so the expected number caught in its second period is p q:
 * >= 10 up to p = 160,000 words (the reach), 1 at 200,000, then it
 * fades out.
 *
 * Bound.  In the second period each repeated word is caught with
 * probability q, independently by its digest's slot, so more than
 * ln(2^-20) / ln(1 - q) repeated words pass before the trip with
 * probability 2^-20: 3 (24 bytes) for p = 33, 7 for p <= 2,048, 10 for
 * 4,096, 18 for 10,000, 96 for 32,768.  The request holding the caught
 * word fails, and the verdict (verdict.c) keeps a cycle out: its
 * recovery's words repeat too and trip again.
 *
 * False positives.  A match needs an equal 64-bit digest: distinct words
 * give one with probability 2^-64 (the digest is two folded 64x64-bit
 * products, health.h), and an empty slot (0) matches a digest of 0 with
 * the same probability.  So <= 2^-63 per word, 2^-54 per 512-word
 * window, 2^-29 over 2^32 seeds of 48 bytes.
 *
 * Cost.  A shift, a load, a compare and a store per word, no branch
 * (docs/performance.md has the measured figures).  Every word's store
 * goes to this shared table: threads drawing at once write lines other
 * cores hold, which the store buffer absorbs.  The table holds digests
 * of delivered words, 128 KiB of them, for as long as they stay
 * (docs/health-tests.md, "What stays in memory").
 */
static struct rdrand_samples rdrand_process_samples;
static _Atomic uint64_t rdrand_process_key[2];

/* The key half i: candidate if it is the first, else the first's. */
static uint64_t rdrand_samples_key_half(int i, uint64_t candidate)
{
    uint64_t expected = 0;

    if (candidate == 0)
        candidate = 1;
    if (atomic_compare_exchange_strong_explicit(
            &rdrand_process_key[i], &expected, candidate, memory_order_relaxed,
            memory_order_relaxed))
        return candidate;
    return expected;
}

struct rdrand_samples *rdrand_samples_process(uint64_t key[2],
                                              const uint64_t *words, size_t n)
{
    key[0] = rdrand_samples_key_half(0, words[0] ^ words[n - 1]);
    key[1] = rdrand_samples_key_half(1, words[1] ^ words[n - 2]);
    return &rdrand_process_samples;
}

void rdrand_samples_forget(void)
{
    for (size_t i = 0; i < RDRAND_SAMPLE_SLOTS; i++)
        atomic_store_explicit(&rdrand_process_samples.slot[i], 0,
                              memory_order_relaxed);
    atomic_store_explicit(&rdrand_process_key[0], 0, memory_order_relaxed);
    atomic_store_explicit(&rdrand_process_key[1], 0, memory_order_relaxed);
}
