/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The process-wide long-cycle test: a table of sampled word digests that
 * every thread's draws are looked up in and entered into.  Why it is
 * process-wide and samples one word in four: samples.c; its reach, bound
 * and false-positive rate: docs/health-tests.md, "Continuous tests".
 */
#ifndef RDRAND_SAMPLES_H
#define RDRAND_SAMPLES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* 2^14 slots of 8 bytes (128 KiB); a digest's top 14 bits pick its slot. */
#define RDRAND_SAMPLE_SLOTS_LOG2 14
#define RDRAND_SAMPLE_SLOTS ((size_t)1 << RDRAND_SAMPLE_SLOTS_LOG2)
/* A word is sampled when its digest's low two bits are 0: one in four. */
#define RDRAND_SAMPLE_MASK ((uint64_t)3)

struct rdrand_samples {
    _Atomic uint64_t slot[RDRAND_SAMPLE_SLOTS];
};

static inline uint64_t rdrand_samples_fold(uint64_t a, uint64_t b)
{
    unsigned __int128 p = (unsigned __int128)a * b;

    return (uint64_t)(p >> 64) ^ (uint64_t)p;
}

/*
 * What a slot holds for word w: a second keyed digest of the word, the
 * key's halves swapped.  Not the digest d that chose the slot: a slot's
 * digests all share d's top 14 bits (the slot) and low 2 (the sample),
 * so comparing d, or anything computed from d, leaves 48 bits to collide
 * (2^-48 per lookup, not 2^-64).  This one is computed from the word, so
 * those 16 bits do not fix any of its 64.
 */
static inline uint64_t rdrand_samples_check(uint64_t w, uint64_t k0,
                                            uint64_t k1)
{
    return rdrand_samples_fold(rdrand_samples_fold(w ^ k1, k0 | 1) ^ k0,
                               k1 | 1);
}

/*
 * Word w, just drawn, and its digest d under the key (k0, k1): 1 if it
 * is sampled and its slot holds its check already (the word was drawn
 * before, in any thread, and is still remembered), else 0; a sampled
 * word's check is then entered.  Sampling by the digest means a repeated
 * word is sampled exactly when its first occurrence was.  Relaxed
 * atomics: plain loads and stores on x86-64, no lock prefix; a race
 * loses an entry, never invents a match.
 */
static inline uint64_t rdrand_samples_step(struct rdrand_samples *t, uint64_t w,
                                           uint64_t d, uint64_t k0, uint64_t k1)
{
    _Atomic uint64_t *slot;
    uint64_t check, seen;

    if ((d & RDRAND_SAMPLE_MASK) != 0)
        return 0;
    slot = &t->slot[d >> (64 - RDRAND_SAMPLE_SLOTS_LOG2)];
    check = rdrand_samples_check(w, k0, k1);
    seen = atomic_load_explicit(slot, memory_order_relaxed) == check;
    atomic_store_explicit(slot, check, memory_order_relaxed);
    return seen;
}

/*
 * The process's table and digest key: *table and key[2] for a thread's
 * test state at its first self-test whose sample passes the sample rules;
 * its words (never delivered) set the key if no thread has yet.  Every
 * thread digests under the one key, so their digests meet in the one
 * table.
 */
struct rdrand_samples *rdrand_samples_process(uint64_t key[2],
                                              const uint64_t *words, size_t n);

#endif
